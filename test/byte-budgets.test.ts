// Payload budgets in bytes, on the dev server with the real worker: a turn of 4-byte characters that would carry
// megabytes through continue-as-new is fitted to the byte budget first (the run goes on, nothing leaves history), and
// a payload over 1 MiB anyway (a task that large) is moved to a blob the Temporal server keeps, instead of failing.
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentResult, AgentState, ChatMessage } from '../src/common/types.js';
import { tetherDataConverter } from '../src/payloads/data-converter.js';
import { OFFLOAD_BYTES, TemporalBlobDriver } from '../src/payloads/blob-driver.js';
import { registry } from '../src/registry/index.js';
import { readTranscript } from '../src/store/transcript-reader.js';
import { CONVERSATION_BUDGET_BYTES, conversationBytes } from '../src/workflows/conversation-budget.js';
import { harness, type Harness } from './support/agent-harness.js';
import { recordHistory } from './support/history.js';
import { until } from './support/cli.js';
import { startScriptedModel } from './support/scripted-model.js';

const EMOJI = '\u{1F600}';
/** 63 980 UTF-16 units: under the 64 000-character cap on a tool result, 128 KB as UTF-8. */
const BLOCK = EMOJI.repeat(31_990);

let h: Harness;
beforeAll(async () => {
  registry.register({
    name: 'emoji_block',
    toolset: 'test-bytes',
    description: 'returns a block of 4-byte characters',
    schema: z.object({ n: z.number() }),
    parallelSafe: true,
    sideEffects: 'read-only',
    handler: ({ n }) => JSON.stringify({ n, text: BLOCK }),
  });
  h = await harness();
});
afterAll(async () => {
  registry.unregister('emoji_block');
  await h.close();
});

const cwd = (): string => realpathSync(mkdtempSync(join(tmpdir(), 'tether-bytes-')));
const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

type Event = Awaited<ReturnType<ReturnType<Client['workflow']['getHandle']>['fetchHistory']>>['events'] extends
  (infer E)[] | null | undefined
  ? E
  : never;

async function runEvents(workflowId: string, runId?: string): Promise<Event[]> {
  return (await h.client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [];
}

const isReference = (p: { metadata?: Record<string, Uint8Array> | null } | null | undefined): boolean =>
  Buffer.from(p?.metadata?.messageType ?? []).toString() === 'temporal.api.sdk.v1.ExternalStorageReference';

describe('byte budgets', () => {
  // 20 blocks are over Temporal's 2 MB limit; 5 just over the budget make the recorded history the replay test keeps.
  it.each([
    { calls: 20, over: 2 * 1024 * 1024, record: false },
    { calls: 5, over: CONVERSATION_BUDGET_BYTES, record: true },
  ])(
    'carries a turn of $calls blocks of 4-byte characters through continue-as-new within the byte budget',
    async ({ calls: CALLS, over, record }) => {
      const model = await startScriptedModel([
        { toolCalls: Array.from({ length: CALLS }, (_, n) => ({ name: 'emoji_block', arguments: { n } })) },
        { content: 'read them all' },
      ]);
      const workflowId = `bytes-${randomUUID()}`;
      const { result, state } = await h.withWorker(model.url, async () => {
        const done = await h.run(
          {
            task: 'read the blocks',
            cwd: cwd(),
            limits: { continueAsNewAfterEvents: 20 },
            // Only the budget shortens here: compaction would summarise the blocks away first.
            compaction: { thresholdChars: 100_000_000 },
          },
          workflowId,
        );
        return { result: done, state: await h.client.workflow.getHandle(workflowId).query<AgentState>('state') };
      });
      await model.close();
      expect(model.errors).toEqual([]);
      expect(result).toMatchObject({ status: 'completed', answer: 'read them all', turns: 2, toolCalls: CALLS });
      // The last turn's results are more JSON than the budget (and, with 20, than Temporal takes in one payload).
      const produced = CALLS * Buffer.byteLength(JSON.stringify(JSON.stringify({ n: 10, text: BLOCK })));
      expect(produced).toBeGreaterThan(over);
      expect(state.continuedRuns).toBe(1);

      // The next run's input carried the conversation fitted to the budget, in history (nothing moved out).
      const second = await runEvents(workflowId);
      const started = second[0]!.workflowExecutionStartedEventAttributes!;
      const input = started.input!.payloads![0]!;
      expect(isReference(input)).toBe(false);
      expect(input.data!.length).toBeLessThan(CONVERSATION_BUDGET_BYTES + 64 * 1024);
      // The first run never failed a workflow task (before, an oversized continue-as-new failed it again and again).
      const first = await runEvents(workflowId, started.firstExecutionRunId!);
      expect(first.filter((e) => e.workflowTaskFailedEventAttributes)).toEqual([]);
      // It fitted the carried conversation under the byte-budgets patch (histories from before carry it as it was).
      const patches = first.flatMap((e) =>
        (e.markerRecordedEventAttributes?.details?.['patch-data']?.payloads ?? []).map((p) =>
          Buffer.from(p.data!).toString(),
        ),
      );
      expect(patches.some((p) => p.includes('"byte-budgets"'))).toBe(true);

      // The model got every result, the older ones shortened at whole characters, within the budget.
      const asked = model.requests[1]!.messages;
      expect(asked.filter((m) => m.role === 'tool')).toHaveLength(CALLS);
      expect(conversationBytes(asked as ChatMessage[])).toBeLessThanOrEqual(CONVERSATION_BUDGET_BYTES);
      expect(asked.some((m) => m.content?.includes('removed to keep the conversation within its size budget'))).toBe(
        true,
      );
      expect(asked.filter((m) => loneSurrogate.test(m.content ?? '')).length).toBe(0);
      // The transcript kept every result whole: it was recorded before the conversation was fitted.
      const tools = readTranscript(workflowId).filter((e) => e.role === 'tool');
      expect(tools).toHaveLength(CALLS);
      for (const t of tools) expect(t.content.includes(BLOCK)).toBe(true); // (no 128 KB of emoji in a failure)
      // The first run: it fitted the conversation before continuing as new (the byte-budgets patch).
      if (record) recordHistory(h.address, workflowId, 'byte-budgets', started.firstExecutionRunId!);
    },
    180_000,
  );

  it('fits a conversation of 4-byte characters over the byte budget before the next model call', async () => {
    // Five blocks: 640 KB of JSON, a little over the budget (the recorded history the replay test keeps).
    const model = await startScriptedModel([
      { toolCalls: Array.from({ length: 5 }, (_, n) => ({ name: 'emoji_block', arguments: { n } })) },
      { content: 'read five' },
    ]);
    const workflowId = `bytes-${randomUUID()}`;
    const result = await h.withWorker(model.url, () =>
      h.run({ task: 'read five blocks', cwd: cwd(), compaction: { thresholdChars: 100_000_000 } }, workflowId),
    );
    await model.close();
    expect(result).toMatchObject({ status: 'completed', answer: 'read five' });
    const asked = model.requests[1]!.messages as ChatMessage[];
    expect(conversationBytes(asked)).toBeLessThanOrEqual(CONVERSATION_BUDGET_BYTES);
    expect(asked.filter((m) => m.content?.includes('removed to keep the conversation')).length).toBeGreaterThan(0);
    expect(asked.filter((m) => loneSurrogate.test(m.content ?? '')).length).toBe(0);
    const patches = (await runEvents(workflowId)).flatMap((e) =>
      (e.markerRecordedEventAttributes?.details?.['patch-data']?.payloads ?? []).map((p) =>
        Buffer.from(p.data!).toString(),
      ),
    );
    expect(patches.some((p) => p.includes('"byte-budgets"'))).toBe(true);
    recordHistory(h.address, workflowId, 'byte-budgets');
  }, 180_000);

  it('moves a payload over 1 MiB out of history to a blob the server keeps, and the run goes on', async () => {
    // A task of 1.5 MiB: the start input, the first model call and the continue-as-new input are each over 1 MiB.
    const task = `${'Summarise this log.\n'}${'x'.repeat(1.5 * 1024 * 1024)}`;
    const model = await startScriptedModel([
      { toolCalls: [{ name: 'todo', arguments: { todos: [{ id: 'a', content: 'read', status: 'in_progress' }] } }] },
      (req) => ({ content: `task of ${req.messages.find((m) => m.role === 'user')!.content!.length} characters` }),
    ]);
    const payloads = tetherDataConverter(undefined);
    const connection = await Connection.connect({ address: h.address });
    payloads.bind(connection, 'default', h.taskQueue);
    const client = new Client({ connection, dataConverter: payloads.dataConverter });
    const workflowId = `blob-${randomUUID()}`;
    try {
      const result = await h.withWorker(model.url, async () => {
        const handle = await client.workflow.start('agentWorkflow', {
          taskQueue: h.taskQueue,
          workflowId,
          args: [{ task, model: 'scripted', cwd: cwd(), limits: { continueAsNewAfterEvents: 10 } }],
        });
        const done = (await handle.result()) as AgentResult;
        // The driver on its own, with a payload small enough to record: stored, read back whole, owned by the run.
        const driver = new TemporalBlobDriver();
        driver.bind(new Client({ connection }), h.taskQueue);
        const small = { metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from('"a small payload"') };
        const [claim] = await driver.store({ target: { kind: 'workflow', namespace: 'default', id: workflowId } }, [
          small,
        ]);
        const [back] = await driver.retrieve({}, [claim!]);
        expect(Buffer.from(back!.data!).toString()).toBe('"a small payload"');
        const blobId = claim!.claimData.workflowId!;
        await until('the blob workflow to wait for its owner', async () =>
          (await runEvents(blobId)).some((e) => e.timerStartedEventAttributes),
        );
        recordHistory(h.address, blobId, 'payload-blob');
        return done;
      });
      expect(model.errors).toEqual([]);
      expect(result).toMatchObject({ status: 'completed', answer: `task of ${task.length} characters` });
      expect(model.requests[0]!.messages[1]!.content).toBe(task);
      // Both runs' inputs are claims in history; the bytes are in blob workflows owned by the run.
      const second = await runEvents(workflowId);
      const started = second[0]!.workflowExecutionStartedEventAttributes!;
      expect(isReference(started.input!.payloads![0])).toBe(true);
      const first = await runEvents(workflowId, started.firstExecutionRunId!);
      expect(isReference(first[0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0])).toBe(true);
      const scheduled = first.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel');
      expect(isReference(scheduled!.activityTaskScheduledEventAttributes!.input!.payloads![0])).toBe(true);
      const blobs = [];
      for await (const w of h.client.workflow.list({
        query: `WorkflowType = 'payloadBlob' AND TaskQueue = '${h.taskQueue}'`,
      }))
        blobs.push(w);
      expect(blobs.length).toBeGreaterThanOrEqual(3);
      // Nothing in either history comes near the payload limit.
      for (const e of [...first, ...second])
        for (const p of Object.values(e).flatMap(
          (a) => (a as { input?: { payloads?: unknown[] } })?.input?.payloads ?? [],
        ))
          expect((p as { data: Uint8Array }).data.length).toBeLessThan(OFFLOAD_BYTES);
    } finally {
      await model.close();
      await connection.close();
    }
  }, 180_000);
});
