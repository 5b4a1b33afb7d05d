// The conversation cache's miss path: the worker running a model call is SIGKILLed mid-run; a fresh worker does not
// hold the conversation, says so (Model.ConversationCacheMiss), and the workflow sends it whole, once. The model
// gets the same, complete conversation as before the kill.
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { expect, inject, it } from 'vitest';
import type { AgentResult } from '../src/common/types.js';
import { until } from './support/cli.js';
import { conversationBreaks, modelInputs, readingScript, writeReadable } from './support/history-size.js';
import { startScriptedModel, type ChatRequest, type Step } from './support/scripted-model.js';
import { workerEnv, workerProcessSuite } from './support/worker-process.js';

const { client: temporal, workers } = workerProcessSuite();

it('a fresh worker after a SIGKILL misses the cache, and the model then gets the whole conversation once', async () => {
  const turns = 8;
  const slowTurn = 5;
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-cache-miss-')));
  const path = writeReadable(cwd, turns);
  // Turn 5 answers slowly, so the first worker dies while the model call (sent as a delta) waits for it.
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
  const second = await workers.start(env);

  const result = (await handle.result()) as AgentResult;
  expect(model.errors).toEqual([]);
  expect(result).toMatchObject({ status: 'completed', answer: `done after ${turns} turns`, turns });
  // Turn 5 was asked twice (before and after the kill) with the same conversation, and every turn continued the last.
  expect(model.requests).toHaveLength(turns + 1);
  expect(JSON.stringify(model.requests[slowTurn]!.messages)).toBe(
    JSON.stringify(model.requests[slowTurn - 1]!.messages),
  );
  expect(conversationBreaks(model.requests, 'scripted')).toEqual([]);

  // The history shows the miss, and the whole conversation sent once after it.
  const history = await handle.fetchHistory();
  const misses = (history.events ?? []).filter(
    (e) => e.activityTaskFailedEventAttributes?.failure?.applicationFailureInfo?.type === 'Model.ConversationCacheMiss',
  );
  expect(misses).toHaveLength(1);
  const inputs = await modelInputs(temporal(), handle.workflowId);
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
