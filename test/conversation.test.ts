// A conversation run (what `tether acp` starts): it answers, waits durably for the next `message`, counts max-turns
// per message, and ends only when cancelled; its turns arrive as update-with-start.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { WithStartWorkflowOperation } from '@temporalio/client';
import type { AgentState } from '../src/common/types.js';
import { agentWorkflow } from '../src/workflows/agent-workflow.js';
import { conversationTurnUpdate } from '../src/workflows/conversation-turn.js';
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

it('turns sent as update-with-start: concurrent first prompts start one run; each turn is taken once', async () => {
  const model = await startScriptedModel([{ content: 'first answer' }, { content: 'second answer' }]);
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-conversation-')));
  await h.withWorker(model.url, async () => {
    const workflowId = `conversation-turns-${randomUUID()}`;
    // Two first prompts for one session at the same moment: no check-then-start race can start two runs or lose a
    // prompt (the run starts with one as its task; the other arrives as a turn).
    const send = (text: string) => {
      const turnId = randomUUID();
      return h.client.workflow.executeUpdateWithStart(conversationTurnUpdate, {
        args: [{ text, turnId }],
        startWorkflowOperation: new WithStartWorkflowOperation(agentWorkflow, {
          taskQueue: h.taskQueue,
          workflowId,
          args: [{ task: text, model: 'scripted', cwd, conversation: true, turnId }],
          workflowIdConflictPolicy: 'USE_EXISTING',
        }),
      });
    };
    const accepted = await Promise.all([send('one'), send('two')]);
    expect(accepted.map((a) => a.started).sort()).toEqual([false, true]);
    expect(accepted.map((a) => a.answers)).toEqual([0, 0]);
    const handle = h.client.workflow.getHandle(workflowId);
    const state = (): Promise<AgentState> => handle.query<AgentState>('state');
    await until('the first answer', async () => (await state()).answers === 1);
    const users = (i: number): (string | null)[] =>
      model.requests[i]!.messages.filter((m) => m.role === 'user').map((m) => m.content);
    expect(users(0).sort()).toEqual(['one', 'two']);
    // A turn sent twice (a retried request: the same turn id) is taken once, and both sends learn the same answer
    // to wait for.
    const turn = { text: 'three', turnId: `turn-${randomUUID()}` };
    const first = await handle.executeUpdate(conversationTurnUpdate, { args: [turn] });
    const second = await handle.executeUpdate(conversationTurnUpdate, { args: [turn] });
    expect(second).toEqual(first);
    expect(first).toEqual({ answers: 1, started: false });
    await until('the second answer', async () => (await state()).answers === 2);
    expect(users(1).filter((t) => t === 'three')).toHaveLength(1);
    // An empty turn is refused by the validator, naming what was wrong; the run goes on.
    const refused = await handle
      .executeUpdate(conversationTurnUpdate, { args: [{ text: '', turnId: 'x' }] })
      .catch((err: Error & { cause?: Error }) => err.cause?.message);
    expect(refused).toMatch(/text must be a non-empty string/);
    await handle.cancel();
    await expect(handle.result()).rejects.toThrow();
    recordHistory(h.address, workflowId, 'conversation-turns');
  });
  expect(model.errors).toEqual([]);
  await model.close();
}, 120_000);
