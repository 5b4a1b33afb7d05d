// A call for the worker holding a task's environment is first scheduled on the workflow's own queue, where Temporal
// hands it to the worker completing the workflow task at once (eager dispatch). When that worker holds the
// environment, the call runs there in one activity; when it does not, it answers misrouted without running anything
// and the call goes to the holder's own queue. Real routing code and dev server; the activities stand in for tools.
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { Context } from '@temporalio/activity';
import { bundleWorkflowCode, NativeConnection, Worker, type WorkflowBundle } from '@temporalio/worker';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import type { RunToolInput, RunToolOutput } from '../src/common/activity-contract.js';
import { misrouted } from '../src/activities/heartbeat.js';
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

/** A worker's runTool: answers misrouted as the real one does, else runs (records) and names the worker. */
function tool(ownQueue: string, ran: string[]) {
  return async (i: RunToolInput): Promise<RunToolOutput> => {
    if (misrouted(i.holder, ownQueue)) return { status: 'misrouted', result: '' };
    ran.push(`${ownQueue} attempt ${Context.current().info.attempt}`);
    return { status: 'ok', result: ownQueue };
  };
}

async function scenario(holderIsWorkflowWorker: boolean) {
  const taskQueue = `eager-${randomUUID()}`;
  const [wfQueue, otherQueue] = [`${taskQueue}@wf`, `${taskQueue}@other`];
  const ran: string[] = [];
  const wf = await Worker.create({
    connection: native,
    taskQueue,
    workflowBundle: bundle,
    activities: { runTool: tool(wfQueue, ran) },
  });
  const other = await Worker.create({
    connection: native,
    taskQueue: otherQueue,
    activities: { runTool: tool(otherQueue, ran) },
  });
  const workflowId = `eager-${randomUUID()}`;
  const holder = holderIsWorkflowWorker ? wfQueue : otherQueue;
  const result = await other.runUntil(
    wf.runUntil(
      client.workflow.execute('routedCall', {
        taskQueue,
        workflowId,
        args: [{ queue: holder, had: true, pinSeconds: 5 }, input],
      }),
    ),
  );
  const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const scheduled = events
    .map((e) => e.activityTaskScheduledEventAttributes)
    .filter((a) => a)
    .map((a) => a!.taskQueue?.name);
  return { result: result as { out: RunToolOutput }, ran, scheduled, holder, taskQueue };
}

it('runs a call in one activity on the workflow queue when the worker taking it holds the environment', async () => {
  const s = await scenario(true);
  expect(s.result.out).toEqual({ status: 'ok', result: s.holder });
  expect(s.ran).toEqual([`${s.holder} attempt 1`]);
  expect(s.scheduled).toEqual([s.taskQueue]);
});

it('a worker without the environment runs nothing, and the call goes to the holder once', async () => {
  const s = await scenario(false);
  expect(s.result.out).toEqual({ status: 'ok', result: s.holder });
  expect(s.ran).toEqual([`${s.holder} attempt 1`]);
  expect(s.scheduled).toEqual([s.taskQueue, s.holder]);
});
