// A call for the worker holding a task's environment is first scheduled on the workflow's own queue, where Temporal
// hands it to the worker completing the workflow task at once (eager dispatch). There, on the holder, it runs in
// one activity; on another worker it runs nothing and goes to the holder's queue, and later calls go there directly.
// A worker from before this change runs nothing; a try lost after it started counts as the holder lost. Real
// routing code and the real holder check on the dev server; `runTool` stands in for the tools.
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { Context } from '@temporalio/activity';
import { bundleWorkflowCode, NativeConnection, Worker, type WorkflowBundle } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { RunToolInput, RunToolOutput } from '../src/common/activity-contract.js';
import type { SideEffects } from '../src/common/tool-definition.js';
import type { EnvironmentRoute } from '../src/workflows/environment-route.js';
import { holderActivities } from '../src/activities/holder-only.js';
import { installRuntimeLogging } from '../src/worker.js';

let client: Client;
let connection: Connection;
let native: NativeConnection;
let bundle: WorkflowBundle;

beforeAll(async () => {
  installRuntimeLogging();
  const address = inject('temporalAddress');
  connection = await Connection.connect({ address });
  client = new Client({ connection });
  native = await NativeConnection.connect({ address });
  bundle = await bundleWorkflowCode({
    workflowsPath: fileURLToPath(new URL('./support/route-workflow.ts', import.meta.url)),
    logger: undefined,
  });
});
afterAll(async () => {
  await connection.close();
  await native.close();
});

const input: RunToolInput = { name: 'terminal', args: '{}', callId: 'c1', taskId: 't1', cwd: '/tmp' };

/** How the worker running the workflow treats the eager try. */
type WorkflowWorker = 'current' | 'before-eager' | 'lost-silent' | 'lost-after-heartbeat';

interface Scenario {
  /** The worker running the workflow holds the environment (else the other worker does). */
  holderRunsWorkflow: boolean;
  workflowWorker?: WorkflowWorker;
  calls?: number;
  sideEffects?: SideEffects;
}

async function run(s: Scenario) {
  const taskQueue = `eager-${randomUUID()}`;
  const [wfId, otherId] = [`wf-${randomUUID().slice(0, 8)}`, `other-${randomUUID().slice(0, 8)}`];
  const [wfQueue, otherQueue] = [`${taskQueue}@${wfId}`, `${taskQueue}@${otherId}`];
  const ran: string[] = [];
  const tool =
    (name: string) =>
    async (i: RunToolInput): Promise<RunToolOutput> => {
      ran.push(`${name}${i.holder ? ' via eager try' : ''}`);
      return { status: 'ok', result: name };
    };
  /** A worker that takes the eager try and is lost before it answers (heartbeating its id first, or not). */
  const lost = (heartbeat: boolean) => async (): Promise<RunToolOutput> => {
    if (heartbeat) Context.current().heartbeat({ worker: wfId });
    await Context.current().sleep(2_500); // past the 1 s heartbeat timeout: Temporal counts it as lost
    return { status: 'ok', result: 'too late' };
  };
  const kind = s.workflowWorker ?? 'current';
  const wfActivities = {
    runTool: tool('wf'),
    ...(kind === 'current'
      ? {
          runToolOnHolder: holderActivities(wfQueue, { runTool: tool('wf'), runGatedTool: never, assessCall: never })
            .runToolOnHolder,
        }
      : {}),
    ...(kind === 'lost-silent' ? { runToolOnHolder: lost(false) } : {}),
    ...(kind === 'lost-after-heartbeat' ? { runToolOnHolder: lost(true) } : {}),
  };
  const wf = await Worker.create({ connection: native, taskQueue, workflowBundle: bundle, activities: wfActivities });
  const other = await Worker.create({
    connection: native,
    taskQueue: otherQueue,
    activities: { runTool: tool('other') },
  });
  const workflowId = `eager-${randomUUID()}`;
  const holder = s.holderRunsWorkflow ? wfQueue : otherQueue;
  const route: EnvironmentRoute = { queue: holder, had: true, pinSeconds: 5 };
  const inputs = Array.from({ length: s.calls ?? 1 }, () => input);
  const out = (await other.runUntil(
    wf.runUntil(
      client.workflow.execute('routedCalls', {
        taskQueue,
        workflowId,
        args: [route, inputs, s.sideEffects ?? 'changes-world'],
      }),
    ),
  )) as { results: string[]; route: EnvironmentRoute };
  const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const scheduled = events
    .map((e) => e.activityTaskScheduledEventAttributes)
    .filter((a) => a)
    .map(
      (a) =>
        `${a!.activityType?.name} on ${a!.taskQueue?.name === taskQueue ? 'workflow queue' : a!.taskQueue?.name === otherQueue ? 'other' : a!.taskQueue?.name}`,
    );
  return { ...out, ran, scheduled, holder };
}

const never = (): Promise<never> => Promise.reject(new Error('not used'));

describe('calls for the worker holding the environment', () => {
  it('run in one activity on the workflow queue when the worker running the workflow holds it', async () => {
    const r = await run({ holderRunsWorkflow: true, calls: 2 });
    expect(r.results).toEqual(['wf', 'wf']);
    expect(r.ran).toEqual(['wf via eager try', 'wf via eager try']);
    expect(r.scheduled).toEqual(['runToolOnHolder on workflow queue', 'runToolOnHolder on workflow queue']);
  });

  it('run nothing on another worker, reach the holder once, and later go to the holder directly', async () => {
    const r = await run({ holderRunsWorkflow: false, calls: 2 });
    expect(r.results).toEqual(['other', 'other']);
    expect(r.ran).toEqual(['other', 'other']);
    expect(r.scheduled).toEqual(['runToolOnHolder on workflow queue', 'runTool on other', 'runTool on other']);
  });

  it('a worker from before the eager try (no runToolOnHolder) runs nothing; the call reaches the holder', async () => {
    const r = await run({ holderRunsWorkflow: false, workflowWorker: 'before-eager' });
    expect(r.results).toEqual(['other']);
    expect(r.ran).toEqual(['other']);
    expect(r.scheduled).toEqual(['runToolOnHolder on workflow queue', 'runTool on other']);
  });

  it('a try lost after it started counts as the holder lost: never run again, the route dropped at once', async () => {
    // World-changing: it may have partly run, so it is reported lost and run nowhere else.
    const changing = await run({ holderRunsWorkflow: true, workflowWorker: 'lost-silent' });
    expect(changing.results).toEqual(['lost']);
    expect(changing.ran).toEqual([]);
    expect(changing.route.queue).toBeUndefined();
    // Safe: straight to the shared queue (where a real worker makes a new environment), not to the lost one's queue.
    for (const workflowWorker of ['lost-silent', 'lost-after-heartbeat'] as const) {
      const safe = await run({ holderRunsWorkflow: true, workflowWorker, sideEffects: 'idempotent' });
      expect(safe.results).toEqual(['wf']);
      expect(safe.scheduled).toEqual(['runToolOnHolder on workflow queue', 'runTool on workflow queue']);
      expect(safe.route.queue).toBeUndefined();
    }
  });
});
