// History grows with what a run produces: a run of many turns (2.5 KB tool results, compaction on the way) writes at
// most 3 times the bytes of its content, the model still gets the whole conversation, and a run continued as new
// goes on naming what the worker holds.
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CallModelInput } from '../src/common/activity-contract.js';
import type { AgentInput, AgentResult, AgentState } from '../src/common/types.js';
import { harness, type Harness } from './support/agent-harness.js';
import { until } from './support/cli.js';
import { recordHistory } from './support/history.js';
import {
  conversationBreaks,
  historyBreakdown,
  modelInputs,
  producedBytes,
  readingScript,
  writeReadable,
} from './support/history-size.js';
import { runHistories } from './support/long-run.js';
import { readTranscript } from '../src/store/transcript-reader.js';
import { startScriptedModel, type ScriptedModel } from './support/scripted-model.js';

let h: Harness;
beforeAll(async () => {
  h = await harness();
});
afterAll(() => h.close());

async function readingRun(
  turns: number,
  extra: Partial<AgentInput>,
): Promise<{ model: ScriptedModel; workflowId: string; result: AgentResult; state: AgentState }> {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-history-size-')));
  const path = writeReadable(cwd, turns);
  const model = await startScriptedModel(readingScript(turns, path), {
    summariser: { content: 'Earlier turns read data.txt forty lines at a time.' },
  });
  const workflowId = `history-size-${randomUUID()}`;
  const done = await h.withWorker(model.url, async () => {
    const handle = await h.client.workflow.start('agentWorkflow', {
      taskQueue: h.taskQueue,
      workflowId,
      args: [{ task: 'read data.txt until told to stop', model: 'scripted', cwd, ...extra }],
    });
    return { result: (await handle.result()) as AgentResult, state: await handle.query<AgentState>('state') };
  });
  await model.close();
  expect(model.errors).toEqual([]);
  expect(done.result).toMatchObject({ status: 'completed', answer: `done after ${turns} turns`, turns });
  // The model got the whole conversation every time: each request continues the one before.
  expect(conversationBreaks(model.requests, 'scripted')).toEqual([]);
  return { model, workflowId, ...done };
}

it('writes at most 3x the content it produced over 40 turns with 2.5 KB tool results and compaction', async () => {
  const { model, workflowId, result, state } = await readingRun(40, {
    limits: { maxTurns: 100 },
    compaction: { thresholdChars: 50_000, keepRecentMessages: 6, model: 'summariser' },
  });
  recordHistory(h.address, workflowId, 'model-input-delta');
  expect(state.compactions).toBeGreaterThanOrEqual(1);
  const runs = await runHistories(h.client, workflowId);
  const historyBytes = runs.reduce((n, r) => n + r.bytes, 0);
  const content = producedBytes(model.requests, 'scripted', result.answer);
  // 39 results of ~2.5 KB at least: the content figure is the run's own, not a constant.
  expect(content).toBeGreaterThan(39 * 2_400);
  const ratio = historyBytes / content;
  if (ratio > 3) console.log({ content, historyBytes, ...(await historyBreakdown(h.client, workflowId)) });
  expect(ratio).toBeLessThanOrEqual(3);
}, 300_000);

it('after continue-as-new the first model call still sends only what is new', async () => {
  const { workflowId, state } = await readingRun(12, { limits: { maxTurns: 100, continueAsNewAfterEvents: 60 } });
  recordHistory(h.address, workflowId, 'model-input-continued');
  expect(state.continuedRuns).toBeGreaterThanOrEqual(1);
  let runs: Awaited<ReturnType<typeof runHistories>> = [];
  await until('every run listed', async () => {
    runs = await runHistories(h.client, workflowId);
    return runs.length === state.continuedRuns + 1;
  });
  // The latest run started from a carried conversation of more than ten messages; its first model call named them.
  const inputs: CallModelInput[] = await modelInputs(h.client, workflowId);
  expect(inputs.length).toBeGreaterThan(0);
  const first = inputs[0]!;
  expect(first.conversation?.base).toBeDefined();
  expect(first.tools).toEqual([]);
  expect(first.messages.length).toBeLessThanOrEqual(2);
  expect(first.conversation?.layout?.some((p) => Array.isArray(p) && p[1] - p[0] > 10)).toBe(true);
}, 300_000);

it('model call inputs do not name the run: the worker finds its conversation and transcript by its own workflow id', async () => {
  // Without the query a worker that looked under the wrong id would miss, and the miss would be in the history.
  const before = process.env.TETHER_CONVERSATION_REBUILD;
  process.env.TETHER_CONVERSATION_REBUILD = '0';
  try {
    const { model, workflowId } = await readingRun(6, { limits: { maxTurns: 100 } });
    recordHistory(h.address, workflowId, 'model-input-lean');
    const history = await h.client.workflow.getHandle(workflowId).fetchHistory();
    const scheduled = (history.events ?? []).filter(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel',
    );
    expect(scheduled).toHaveLength(6);
    for (const e of scheduled) {
      const payload = e.activityTaskScheduledEventAttributes!.input!.payloads![0]!.data!;
      expect(Buffer.from(payload).toString('utf8')).not.toContain(workflowId);
    }
    expect(history.events?.filter((e) => e.activityTaskFailedEventAttributes)).toEqual([]);
    // Every call after the first named the conversation the worker held (no whole resend after a miss).
    const inputs = await modelInputs(h.client, workflowId);
    expect(inputs.slice(1).every((i) => i.conversation?.base !== undefined && i.messages.length <= 2)).toBe(true);
    // The transcript went under the run's id: every message the model was given, and its replies, once.
    const last = model.requests.at(-1)!;
    expect(readTranscript(workflowId).map((e) => e.role)).toEqual([...last.messages.map((m) => m.role), 'assistant']);
  } finally {
    if (before === undefined) delete process.env.TETHER_CONVERSATION_REBUILD;
    else process.env.TETHER_CONVERSATION_REBUILD = before;
  }
}, 300_000);
