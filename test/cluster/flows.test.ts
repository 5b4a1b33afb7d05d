// End-to-end flows on the real Temporal server (PostgreSQL persistence, SQL visibility) through the compiled CLI and
// real `tether worker` processes: a run with tools, an approval decided while no worker runs, a schedule, a batch.
// Visibility listing and `tether cluster setup` get files of their own beside this one (test/cluster/*.test.ts).
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import type { AgentResult } from '../../src/common/types.js';
import { runCli, until } from '../support/cli.js';
import { startScriptedModel, type Step } from '../support/scripted-model.js';
import { workerEnv, workerProcessSuite } from '../support/worker-process.js';

const { client, workers, models } = workerProcessSuite();

const lines = (file: string): string[] =>
  existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];

/** A working directory, a scripted model and the environment of every `tether` process of one test. */
async function setUp(
  name: string,
  script: Step[],
): Promise<{ cwd: string; env: Record<string, string>; tether: (args: string[]) => ReturnType<typeof runCli> }> {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), `tether-cluster-${name}-`)));
  const model = await startScriptedModel(script);
  models.push(model);
  const { env } = workerEnv(inject('temporalAddress'), model.url, `cluster-${name}`);
  return { cwd, env, tether: (args) => runCli(args, { cwd, env }) };
}

describe('on the Temporal server with PostgreSQL', () => {
  it('the cluster is the real server, not the dev server', async () => {
    const info = await client().connection.workflowService.getSystemInfo({});
    expect(info.serverVersion).toBe('1.32.2');
    const cluster = await client().connection.operatorService.listClusters({});
    expect(cluster.clusters?.map((c) => c.clusterName)).toEqual(['active']);
  });

  it('a run with tools, worked by two worker processes', async () => {
    const { cwd, env, tether } = await setUp('tools', [
      {
        toolCalls: [
          { name: 'write_file', arguments: { path: 'notes/plan.txt', content: 'step one\nstep two\n' } },
          { name: 'terminal', arguments: { command: 'mkdir -p out && wc -l < notes/plan.txt > out/count.txt' } },
        ],
      },
      { toolCalls: [{ name: 'read_file', arguments: { path: 'out/count.txt' } }] },
      { content: 'counted the plan' },
    ]);
    await workers.start(env);
    await workers.start(env);
    const r = await tether(['run', '--no-worker', '--json', '--model', 'scripted', 'count the plan']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { workflowId: string; status: string; answer: string; toolCalls: number };
    expect(out).toMatchObject({ status: 'completed', answer: 'counted the plan', toolCalls: 3 });
    expect(readFileSync(join(cwd, 'notes', 'plan.txt'), 'utf8')).toBe('step one\nstep two\n');
    expect(readFileSync(join(cwd, 'out', 'count.txt'), 'utf8').trim()).toBe('2');
    // The history the server kept in PostgreSQL has the three tool activities.
    const events = (await client().workflow.getHandle(out.workflowId).fetchHistory()).events ?? [];
    const tools = events.filter((e) => e.activityTaskCompletedEventAttributes).length;
    expect(tools).toBeGreaterThanOrEqual(3);
    await workers.killAll();
  });

  it('an approval decided while no worker runs: the decision waits in the server, the command runs once', async () => {
    const marker = 'ran.txt';
    const { cwd, env, tether } = await setUp('approval', [
      {
        toolCalls: [
          { name: 'terminal', arguments: { command: `kubectl delete pod demo 2>/dev/null; echo ran >> ${marker}` } },
        ],
      },
      { content: 'finished after the approval' },
    ]);
    const worker = await workers.start(env);
    const started = await tether(['run', '--detach', '--no-prompt', '--model', 'scripted', 'delete the demo pod']);
    expect(started.code, started.stderr).toBe(0);
    const workflowId = started.stdout.trim();
    let approvalId = '';
    await until('the approval to be listed', async () => {
      const listed = await tether(['approvals', '--json']);
      const mine = (JSON.parse(listed.stdout || '[]') as { workflowId: string; approvalId: string }[]).find(
        (a) => a.workflowId === workflowId,
      );
      approvalId = mine?.approvalId ?? '';
      return approvalId !== '';
    });
    await worker.kill('SIGKILL');

    const approved = await tether(['approve', workflowId, approvalId]);
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toBe(`approved (once): ${workflowId} ${approvalId} (queued)\n`);
    expect(lines(join(cwd, marker))).toEqual([]); // nothing runs without a worker

    await workers.start(env);
    const result = (await client().workflow.getHandle(workflowId).result()) as AgentResult;
    expect(result).toMatchObject({ status: 'completed', answer: 'finished after the approval' });
    expect(lines(join(cwd, marker))).toEqual(['ran']);
    await workers.killAll();
  });

  it('a schedule starts runs that a worker completes', async () => {
    const { env, tether } = await setUp('schedule', [
      { toolCalls: [{ name: 'search_files', arguments: { pattern: 'x', target: 'files' } }] },
      { content: 'scheduled work done' },
    ]);
    await workers.start(env);
    const id = `cluster-sched-${randomUUID().slice(0, 8)}`;
    const created = await tether(['schedule', 'create', '--every', '1h', '--id', id, 'scheduled task']);
    expect(created.code, created.stderr).toBe(0);
    // An hourly schedule fires by trigger here, so the test waits on state, not on the clock.
    expect((await tether(['schedule', 'trigger', id])).code).toBe(0);
    const describe = async (): Promise<{ runs: number; task: string }> =>
      JSON.parse((await tether(['schedule', 'describe', id, '--json'])).stdout) as { runs: number; task: string };
    await until('the triggered run', async () => (await describe()).runs >= 1);
    expect((await describe()).task).toBe('scheduled task');
    let mine: { workflowId: string; status: string }[] = [];
    await until('the scheduled run to complete (SQL visibility lists it)', async () => {
      const list = JSON.parse((await tether(['list', '--json', '--limit', '200'])).stdout) as {
        workflowId: string;
        status: string;
      }[];
      mine = list.filter((r) => r.workflowId.startsWith(`${id}-`));
      return mine.length >= 1 && mine.every((r) => r.status === 'completed');
    });
    const result = (await client().workflow.getHandle(mine[0]!.workflowId).result()) as AgentResult;
    expect(result).toMatchObject({ status: 'completed', answer: 'scheduled work done' });
    expect((await tether(['schedule', 'delete', id])).code).toBe(0);
    expect((await tether(['schedule', 'describe', id])).code).toBe(1);
    await workers.killAll();
  });

  it('a batch of 6 tasks at concurrency 3 writes 6 completed results', async () => {
    const { cwd, tether } = await setUp('batch', [
      { toolCalls: [{ name: 'search_files', arguments: { pattern: 'x', target: 'files' } }] },
      { content: 'batch item done' },
    ]);
    const file = join(cwd, 'tasks.jsonl');
    writeFileSync(file, Array.from({ length: 6 }, (_, i) => JSON.stringify(`task ${i + 1}`)).join('\n'));
    const out = join(cwd, 'results.jsonl');
    // `tether batch` runs its own embedded worker.
    const r = await tether(['batch', file, '--concurrency', '3', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    const results = lines(out).map((l) => JSON.parse(l) as { line: number; status: string; answer: string });
    expect(results.map((x) => x.line).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(results.every((x) => x.status === 'completed' && x.answer === 'batch item done')).toBe(true);
  });
});
