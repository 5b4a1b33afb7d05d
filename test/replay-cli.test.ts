// `tether replay` on the real dev server: recorded runs (one closed, one waiting on an approval) replay cleanly against
// this build and fail with the run and event against a deliberately incompatible build of the workflows.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentState } from '../src/common/types.js';
import { harness, type Harness } from './support/agent-harness.js';
import { runCli, until, type CliResult } from './support/cli.js';
import { startScriptedModel, type ScriptedModel } from './support/scripted-model.js';

const incompatible = fileURLToPath(new URL('./fixtures/replay/incompatible-workflows.ts', import.meta.url));

let h: Harness;
let model: ScriptedModel;
const closedId = `replay-closed-${randomUUID()}`;
const waitingId = `replay-waiting-${randomUUID()}`;

function replay(args: string[], taskQueue = h.taskQueue): Promise<CliResult> {
  return runCli(['replay', ...args], {
    cwd: tmpdir(),
    env: {
      TEMPORAL_ADDRESS: h.address,
      TETHER_TASK_QUEUE: taskQueue,
      TETHER_HOME: mkdtempSync(join(tmpdir(), 'tether-replay-home-')),
    },
  });
}

/**
 * The id of the run's first command event (the first after its first WorkflowTaskCompleted: a patch marker or a
 * scheduled activity): the first command a timer in front would displace.
 */
async function firstActivityEvent(workflowId: string): Promise<number> {
  const events = (await h.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const done = events.findIndex((ev) => ev.workflowTaskCompletedEventAttributes);
  return Number(events[done + 1]?.eventId);
}

beforeAll(async () => {
  h = await harness();
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-replay-')));
  // The first reply depends on the task: one run asks to run a command that needs an approval, the other answers.
  model = await startScriptedModel([
    (req) =>
      JSON.stringify(req.messages).includes('delete the pod')
        ? { toolCalls: [{ name: 'terminal', arguments: { command: 'kubectl delete pod demo' } }] }
        : { content: 'all done' },
  ]);
  await h.withWorker(model.url, async () => {
    await h.run({ task: 'say done', cwd }, closedId);
    const waiting = await h.client.workflow.start('agentWorkflow', {
      taskQueue: h.taskQueue,
      workflowId: waitingId,
      args: [{ task: 'delete the pod', model: 'scripted', cwd }],
    });
    await until('a pending approval', async () => {
      const s = await waiting.query<AgentState>('state');
      return s.pendingApprovals.length > 0;
    });
  });
  // Visibility lags a little behind the runs: wait until both are listed (the queue also carries the shared
  // store's memory and journal workflows, which are not runs).
  await until('both runs in visibility', async () => {
    let n = 0;
    const query = `TaskQueue = '${h.taskQueue}' AND WorkflowType = 'agentWorkflow'`;
    for await (const _ of h.client.workflow.list({ query })) n += 1;
    return n === 2;
  });
}, 180_000);

afterAll(async () => {
  await h.client.workflow
    .getHandle(waitingId)
    .terminate('test over')
    .catch(() => undefined);
  await model.close();
  await h.close();
});

describe('tether replay', () => {
  it('replays the newest runs, running and closed, against this build: ok, exit 0', async () => {
    const r = await replay(['--last', '5']);
    expect(r.stderr).toContain('2 ok, 0 nondeterministic or failed, 0 not checked');
    expect(r.stdout).toMatch(new RegExp(`^ok +${closedId} \\(run [\\w-]+\\)$`, 'm'));
    expect(r.stdout).toMatch(new RegExp(`^ok +${waitingId} \\(run [\\w-]+\\)$`, 'm'));
    expect(r.code).toBe(0);
  }, 120_000);

  it('against an incompatible build: NONDETERMINISM with the run id and the event, exit 1', async () => {
    const r = await replay(['--workflows', incompatible, closedId, waitingId]);
    const closedRun = (await h.client.workflow.getHandle(closedId).describe()).runId;
    expect(r.stdout).toContain(
      `NONDETERMINISM  ${closedId} (run ${closedRun}) at event ${await firstActivityEvent(closedId)}: `,
    );
    expect(r.stdout).toMatch(
      new RegExp(
        `^NONDETERMINISM  ${waitingId} \\(run [\\w-]+\\) at event ${await firstActivityEvent(waitingId)}: `,
        'm',
      ),
    );
    expect(r.code).toBe(1);
  }, 120_000);

  it('a workflow id that does not exist: NOT FOUND, exit 2, no stack trace', async () => {
    const r = await replay([`no-such-run-${randomUUID()}`]);
    expect(r.stdout).toMatch(/^NOT FOUND +no-such-run-[\w-]+: no such run$/m);
    expect(r.stderr).not.toMatch(/\bat .+:\d+:\d+/);
    expect(r.code).toBe(2);
  }, 60_000);

  it('no runs on the task queue: says so, exit 0', async () => {
    const r = await replay([], `empty-${randomUUID()}`);
    expect(r.stderr).toMatch(/^no agent runs to replay in namespace default \(query: .*TaskQueue = 'empty-/m);
    expect(r.stdout).toBe('');
    expect(r.code).toBe(0);
  }, 60_000);

  it('bad input: a malformed --query, a missing or broken --workflows file, a bad --last: one line each', async () => {
    const q = await replay(['--query', 'ExecutionStatus = = 1']);
    expect(q.stderr).toMatch(/^tether: --query: /);
    expect(q.stderr.trim().split('\n')).toHaveLength(1);
    expect(q.code).not.toBe(0);
    const w = await replay(['--workflows', '/nonexistent/workflows.js']);
    expect(w.stderr.trim()).toBe('tether: --workflows /nonexistent/workflows.js: no such file');
    const broken = join(mkdtempSync(join(tmpdir(), 'tether-replay-broken-')), 'workflows.ts');
    writeFileSync(broken, 'export const x = ;\n');
    const b = await replay(['--workflows', broken]);
    expect(b.stderr).toMatch(/^tether: cannot bundle the workflow code at .*workflows\.ts: ERROR in .*workflows\.ts: /);
    expect(b.stderr.trim().split('\n')).toHaveLength(1);
    expect(b.code).toBe(2);
    const l = await replay(['--last', '0']);
    expect(l.stderr.trim()).toBe("tether: --last must be a positive whole number, got '0'");
  }, 60_000);
});
