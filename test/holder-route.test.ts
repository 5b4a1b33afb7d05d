// The route to the worker holding a task's environment, when the run's workflow tasks move to another worker while
// the holder lives: the eager try reaches the other worker (which runs nothing), and the call goes to the holder's
// own queue as `runGatedTool`, which the holder must run there. The holder is a real worker in this process whose
// shared-queue worker is stopped (its own queue still polled); the other is a `tether worker` process.
import { mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { parseConfig } from '../src/config/config.js';
import { localModelResolver } from '../src/models/local-model.js';
import { createWorker, workerQueue } from '../src/worker.js';
import type { AgentResult } from '../src/common/types.js';
import { workflowBundle } from './support/agent-harness.js';
import { recordingLogger } from './support/recording-logger.js';
import { startScriptedModel, type ChatRequest } from './support/scripted-model.js';
import { startWorkerProcess, workerEnv, type WorkerProcess } from './support/worker-process.js';

let connection: Connection;
let native: NativeConnection;
beforeAll(async () => {
  connection = await Connection.connect({ address: inject('temporalAddress') });
  native = await NativeConnection.connect({ address: inject('temporalAddress') });
});
afterAll(async () => {
  await connection.close();
  await native.close();
});

it('a gated call reaches the holder through its own queue after the run moved to another worker', async () => {
  const address = inject('temporalAddress');
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-holder-route-')));
  const marker = join(cwd, 'marker.txt');
  let other: WorkerProcess | undefined;
  let moveRun = async (): Promise<void> => undefined;
  const model = await startScriptedModel([
    { toolCalls: [{ name: 'terminal', arguments: { command: `echo one >> ${marker}` } }] },
    async (): Promise<{ toolCalls: { name: string; arguments: Record<string, unknown> }[] }> => {
      // Before the reply: the run's next workflow tasks can only go to the other worker.
      await moveRun();
      return { toolCalls: [{ name: 'terminal', arguments: { command: `echo two >> ${marker}` } }] };
    },
    { content: 'done' },
  ]);
  const { env, taskQueue } = workerEnv(address, model.url, 'holder-route');
  const { worker: holder } = await createWorker({
    settings: { address, namespace: 'default', taskQueue, embedded: false },
    connection: native,
    workflowBundle: await workflowBundle(),
    model: { openai: { baseURL: model.url, apiKey: 'test-key' }, local: localModelResolver() },
    config: parseConfig({}),
    log: recordingLogger(),
    shutdownGraceTime: '1 second',
  });
  const [shared] = holder.workers;
  moveRun = async () => {
    other = await startWorkerProcess(env);
    shared!.shutdown();
  };
  const client = new Client({ connection });
  const workflowId = `holder-route-${randomUUID()}`;
  // Each of the holder's workers runs on its own: the shared-queue one stops halfway, the others go on.
  const runs = holder.workers.map((w) => w.run());
  try {
    const result = (await client.workflow.execute('agentWorkflow', {
      taskQueue,
      workflowId,
      args: [{ task: 't', model: 'scripted', cwd, approvalMode: 'off' }],
    })) as AgentResult;
    expect(result).toMatchObject({ status: 'completed', answer: 'done' });
    const toolResults = (model.requests.at(-1) as ChatRequest).messages.filter((m) => m.role === 'tool');
    expect(toolResults.map((m) => JSON.parse(m.content!) as { exit_code?: number })).toMatchObject([
      { exit_code: 0 },
      { exit_code: 0 },
    ]);
    expect(readFileSync(marker, 'utf8')).toBe('one\ntwo\n');
    // The second call: tried on the workflow's queue (the other worker ran nothing), then run on the holder's queue.
    const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
    const scheduled = events
      .map((e) => e.activityTaskScheduledEventAttributes)
      .filter((a) => a && /Tool/.test(a.activityType?.name ?? ''))
      .map(
        (a) =>
          `${a!.activityType?.name} on ${a!.taskQueue?.name === taskQueue ? 'workflow queue' : a!.taskQueue?.name}`,
      );
    expect(scheduled.slice(-2)).toEqual([
      'runGatedToolOnHolder on workflow queue',
      `runGatedTool on ${workerQueue(taskQueue)}`,
    ]);
  } finally {
    holder.shutdown();
    await Promise.allSettled(runs);
    await other?.kill('SIGTERM');
    await model.close();
  }
}, 180_000);
