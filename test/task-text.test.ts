// The run's task text is not recorded with every tool call: history holds a long task a bounded number of times
// however many tool calls the run makes, and a hook still sees it whole, on the worker that ran the model call (its
// conversation) and on a fresh worker that never did (it asks the workflow); a sub-agent's hook sees the sub-task.
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { AgentResult, AgentState } from '../src/common/types.js';
import { hooks, registry } from '../src/registry/index.js';
import { harness, type Harness } from './support/agent-harness.js';
import { until } from './support/cli.js';
import { recordHistory } from './support/history.js';
import { startScriptedModel, type ChatRequest, type ScriptedReply, type Step } from './support/scripted-model.js';

let h: Harness;
beforeAll(async () => {
  h = await harness();
});
afterAll(() => h.close());
afterEach(() => {
  hooks.removeSource('test-task-text');
  registry.unregister('task_echo');
});

const MARKER = 'TASK-TEXT-MARKER-91c4';
/** 8 KB ending in MARKER, so a capped excerpt (the run's memo shows the task's start) does not count as a copy. */
const longTask = (): string => `${randomUUID()} ${'Context the agent needs. '.repeat(400)}`.slice(0, 8_000) + MARKER;
const cwd = (): string => realpathSync(mkdtempSync(join(tmpdir(), 'tether-task-text-')));
const call = (name: string, args: Record<string, unknown>): ScriptedReply => ({
  toolCalls: [{ name, arguments: args }],
});

/** Occurrences of `needle` in every payload of the run's history (payload data decoded, as recorded). */
async function occurrences(handle: WorkflowHandle, needle: string): Promise<number> {
  const history = await handle.fetchHistory();
  let n = 0;
  const visit = (v: unknown): void => {
    if (v instanceof Uint8Array) n += Buffer.from(v).toString('utf8').split(needle).length - 1;
    else if (Array.isArray(v)) v.forEach(visit);
    else if (v && typeof v === 'object') Object.values(v).forEach(visit);
  };
  for (const e of history.events ?? []) {
    const before = n;
    visit(e);
    if (process.env.DEBUG_TASK_TEXT && n > before) console.log(e.eventType, n - before);
  }
  return n;
}

it('records a long task a bounded number of times, however many tool calls the run makes', async () => {
  const counts: number[] = [];
  for (const calls of [2, 10]) {
    const steps: Step[] = [
      ...Array.from({ length: calls }, (_, i) => call('terminal', { command: `echo ${i}` })),
      { content: 'done' },
    ];
    const model = await startScriptedModel(steps);
    const workflowId = `task-text-${randomUUID()}`;
    const handle = await h.withWorker(model.url, async () => {
      const handle = await h.client.workflow.start('agentWorkflow', {
        taskQueue: h.taskQueue,
        workflowId,
        args: [{ task: longTask(), model: 'scripted', cwd: cwd() }],
      });
      expect(await handle.result()).toMatchObject({ status: 'completed', toolCalls: calls });
      return handle;
    });
    await model.close();
    expect(model.errors).toEqual([]);
    if (calls === 10) recordHistory(h.address, workflowId, 'tool-input-task-by-reference');
    counts.push(await occurrences(handle, MARKER));
  }
  // The workflow's input and the first model call's new messages; no tool call's input carries it.
  expect(counts[0]).toBeLessThanOrEqual(2);
  expect(counts[1]).toBe(counts[0]);
}, 120_000);

it('gives a hook and a reading tool the whole task, also on a fresh worker that asks the workflow', async () => {
  const task = longTask();
  const seen: { phase: string; what: string; task?: string }[] = [];
  let phase = 'first worker';
  hooks.add(
    'pre_tool_call',
    (c) => {
      seen.push({ phase, what: `pre ${c.name}`, task: c.userTask });
      // The first task_echo waits for a person: the run then goes on on another worker.
      return c.name === 'task_echo' ? { action: 'require_approval', reason: 'the test asks' } : undefined;
    },
    'test-task-text',
  );
  registry.register({
    name: 'task_echo',
    toolset: 'test-task-text',
    description: 'echo',
    schema: { type: 'object' },
    readsUserTask: true,
    handler: (_args, ctx) => {
      seen.push({ phase, what: 'tool task_echo', task: ctx.userTask });
      return '{"ok":true}';
    },
  });
  const model = await startScriptedModel([
    call('terminal', { command: 'echo one' }),
    call('task_echo', {}),
    { content: 'done' },
  ]);
  const workflowId = `task-text-hook-${randomUUID()}`;
  const handle = h.client.workflow.getHandle(workflowId);
  await h.withWorker(model.url, async () => {
    await h.client.workflow.start('agentWorkflow', {
      taskQueue: h.taskQueue,
      workflowId,
      args: [{ task, model: 'scripted', cwd: cwd() }],
    });
    await until(
      'the pending approval',
      async () => (await handle.query<AgentState>('state')).pendingApprovals.length > 0,
    );
  });
  // A new worker: new activities, so nothing of this run is held (no conversation, no task text).
  phase = 'fresh worker';
  await h.withWorker(model.url, async () => {
    const [p] = (await handle.query<AgentState>('state')).pendingApprovals;
    await handle.executeUpdate('decideApproval', { args: [{ approvalId: p!.approvalId, choice: 'once' }] });
    expect(await handle.result()).toMatchObject({ status: 'completed', answer: 'done' });
  });
  await model.close();
  expect(model.errors).toEqual([]);
  expect(seen.map((s) => [s.phase, s.what, s.task === task])).toEqual([
    ['first worker', 'pre terminal', true],
    ['first worker', 'pre task_echo', true],
    ['fresh worker', 'pre task_echo', true],
    ['fresh worker', 'tool task_echo', true],
  ]);
}, 120_000);

it("gives a sub-agent's hook the sub-agent's own task", async () => {
  const parentTask = longTask();
  const goal = `sub: list the files ${randomUUID()}`;
  const seen: string[] = [];
  hooks.add('post_tool_call', (c) => void seen.push(c.userTask ?? '(none)'), 'test-task-text');
  // Children are recognised by their task; the parent goes by turn.
  let parentTurn = 0;
  const parent: ScriptedReply[] = [call('delegate_task', { tasks: [{ goal }] }), { content: 'parent done' }];
  const step = (req: ChatRequest): ScriptedReply => {
    if (String(req.messages[1]?.content ?? '').startsWith('sub:'))
      return req.messages.some((m) => m.role === 'tool')
        ? { content: 'child done' }
        : call('terminal', { command: 'ls' });
    return parent[parentTurn++] ?? { status: 400, error: 'parent script ran out' };
  };
  const model = await startScriptedModel(Array.from({ length: 4 }, () => step));
  await h.withWorker(model.url, async () => {
    const handle = await h.client.workflow.start('agentWorkflow', {
      taskQueue: h.taskQueue,
      workflowId: `task-text-sub-${randomUUID()}`,
      args: [{ task: parentTask, model: 'scripted', cwd: cwd() }],
    });
    expect(((await handle.result()) as AgentResult).answer).toBe('parent done');
  });
  await model.close();
  expect(model.errors).toEqual([]);
  expect(seen).toEqual([goal]);
}, 120_000);
