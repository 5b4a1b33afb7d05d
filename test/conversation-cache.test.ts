// The conversation cache after a takeover: the worker running a model call is SIGKILLed mid-run and a fresh worker,
// which does not hold the conversation, takes the call over. It asks the workflow (a query, nothing recorded); with
// that off, the miss goes back to the workflow (Model.ConversationCacheMiss), which sends it whole, once. Either
// way the model gets the same, complete conversation as before the kill.
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { expect, inject, it } from 'vitest';
import type { AgentResult } from '../src/common/types.js';
import { until } from './support/cli.js';
import { conversationBreaks, modelInputs, readingScript, writeReadable } from './support/history-size.js';
import { startScriptedModel, type ChatRequest, type ScriptedModel, type Step } from './support/scripted-model.js';
import { workerEnv, workerProcessSuite, type WorkerProcess } from './support/worker-process.js';

const { client: temporal, workers } = workerProcessSuite();

const turns = 8;
const slowTurn = 5;

interface Takeover {
  model: ScriptedModel;
  workflowId: string;
  second: WorkerProcess;
}

/** A run whose worker is SIGKILLed during turn 5's model call (sent by reference); `secondEnv` for the next worker. */
async function takeover(secondEnv: Record<string, string> = {}): Promise<Takeover> {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-cache-miss-')));
  const path = writeReadable(cwd, turns);
  // Turn 5 answers slowly, so the first worker dies while the model call waits for it.
  const steps: Step[] = readingScript(turns, path).map((step, i) =>
    i + 1 === slowTurn
      ? async (req: ChatRequest) => ({ ...(typeof step === 'function' ? await step(req) : step), delayMs: 3_000 })
      : step,
  );
  const model = await startScriptedModel(steps);
  const { env, taskQueue } = workerEnv(inject('temporalAddress'), model.url, 'cache-miss');
  const first = await workers.start(env);
  const handle = await temporal().workflow.start('agentWorkflow', {
    taskQueue,
    workflowId: `cache-miss-${randomUUID()}`,
    args: [{ task: 'read data.txt until told to stop', model: 'scripted', cwd }],
  });
  await until(`the request for turn ${slowTurn}`, () => model.requests.length >= slowTurn);
  await first.kill('SIGKILL');
  const second = await workers.start({ ...env, ...secondEnv });
  const result = (await handle.result()) as AgentResult;
  expect(model.errors).toEqual([]);
  expect(result).toMatchObject({ status: 'completed', answer: `done after ${turns} turns`, turns });
  // Turn 5 was asked twice (before and after the kill) with the same conversation, and every turn continued the last.
  expect(model.requests).toHaveLength(turns + 1);
  expect(JSON.stringify(model.requests[slowTurn]!.messages)).toBe(
    JSON.stringify(model.requests[slowTurn - 1]!.messages),
  );
  expect(conversationBreaks(model.requests, 'scripted')).toEqual([]);
  return { model, workflowId: handle.workflowId, second };
}

const missesIn = async (workflowId: string): Promise<number> =>
  ((await temporal().workflow.getHandle(workflowId).fetchHistory()).events ?? []).filter(
    (e) => e.activityTaskFailedEventAttributes?.failure?.applicationFailureInfo?.type === 'Model.ConversationCacheMiss',
  ).length;

it('a fresh worker after a SIGKILL asks the workflow for the conversation: no miss, nothing sent twice', async () => {
  const { model, workflowId, second } = await takeover();
  expect(await missesIn(workflowId)).toBe(0);
  const inputs = await modelInputs(temporal(), workflowId);
  // Only the run's first call (nothing held yet) carried its conversation whole; every other named what was held.
  expect(inputs).toHaveLength(turns);
  expect(inputs.filter((i) => i.conversation?.base === undefined)).toHaveLength(1);
  await second.kill('SIGTERM');
  await model.close();
}, 180_000);

it('with the query off, a fresh worker misses and the workflow sends the whole conversation once', async () => {
  const { model, workflowId, second } = await takeover({ TETHER_CONVERSATION_REBUILD: '0' });
  // The history shows the miss, and the whole conversation sent once after it.
  expect(await missesIn(workflowId)).toBe(1);
  const inputs = await modelInputs(temporal(), workflowId);
  const whole = inputs.filter((i) => i.conversation && i.conversation.base === undefined);
  // The first call of the run (nothing held yet) and the one after the miss.
  expect(whole).toHaveLength(2);
  expect(whole[1]!.messages).toHaveLength(model.requests[slowTurn]!.messages.length);
  expect(whole[1]!.tools.length).toBeGreaterThan(0);
  // Before the kill and after the miss, calls name what the worker holds.
  expect(inputs.filter((i) => i.conversation?.base !== undefined).length).toBeGreaterThanOrEqual(turns - 2);
  await second.kill('SIGTERM');
  await model.close();
}, 180_000);
