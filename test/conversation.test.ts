// A conversation run (what `tether acp` starts): it answers, waits durably for the next `message`, counts max-turns
// per message, and ends only when cancelled.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { AgentState } from '../src/common/types.js';
import { harness, type Harness } from './support/agent-harness.js';
import { until } from './support/cli.js';
import { recordHistory } from './support/history.js';
import { startScriptedModel } from './support/scripted-model.js';

let h: Harness;
beforeAll(async () => {
  h = await harness();
});
afterAll(() => h.close());

it('answers each message and waits for the next; max-turns counts per message; cancel ends it', async () => {
  const model = await startScriptedModel([
    {
      content: 'looking',
      toolCalls: [{ name: 'todo', arguments: { todos: [{ id: 'a', content: 'x', status: 'pending' }] } }],
    },
    { content: 'first answer' },
    { toolCalls: [{ name: 'todo', arguments: { todos: [] } }] },
    { toolCalls: [{ name: 'todo', arguments: { todos: [] } }] },
    { content: 'third answer' },
  ]);
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-conversation-')));
  await h.withWorker(model.url, async () => {
    const workflowId = `conversation-${randomUUID()}`;
    const handle = await h.client.workflow.start('agentWorkflow', {
      taskQueue: h.taskQueue,
      workflowId,
      args: [{ task: 'hello', model: 'scripted', cwd, conversation: true, limits: { maxTurns: 2 } }],
    });
    const state = (): Promise<AgentState> => handle.query<AgentState>('state');
    await until('the first answer', async () => (await state()).answers === 1);
    expect(await state()).toMatchObject({ status: 'running', idle: true, answer: 'first answer', turn: 2 });
    expect((await state()).recentReplies).toEqual([
      { turn: 1, text: 'looking' },
      { turn: 2, text: 'first answer' },
    ]);
    // Two more tool turns hit the per-message limit of 2: the run says so and waits again instead of ending.
    await handle.signal('message', { text: 'go on' });
    await until('the limit', async () => (await state()).answers === 2);
    expect(await state()).toMatchObject({ idle: true, stopReason: 'max_turns', turn: 4 });
    await handle.signal('message', { text: 'finish' });
    await until('the third answer', async () => (await state()).answers === 3);
    expect(await state()).toMatchObject({ idle: true, answer: 'third answer', turn: 5 });
    await handle.cancel();
    await expect(handle.result()).rejects.toThrow();
    expect((await handle.describe()).status.name).toBe('CANCELLED');
    recordHistory(h.address, workflowId, 'conversation');
  });
  expect(model.errors).toEqual([]);
  await model.close();
}, 120_000);
