// The agent-loop tools on the real dev server with a real worker and the scripted model: todo, memory,
// session_search, clarify, the message signal, delegate_task (three children at once, a child asking for
// approval, cancellation reaching children), compaction and continue-as-new.
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listPendingApprovals } from '../src/visibility/pending-approvals.js';
import { Store } from '../src/store/store.js';
import type { AgentInput, AgentResult, AgentState } from '../src/common/types.js';
import { harness, type Harness } from './support/agent-harness.js';
import { runCli, until } from './support/cli.js';
import { recordHistory } from './support/history.js';
import {
  lastToolResults,
  startScriptedModel,
  type ChatRequest,
  type ScriptedReply,
  type Step,
} from './support/scripted-model.js';

let h: Harness;
beforeAll(async () => {
  h = await harness();
});
afterAll(() => h.close());

const cwd = (): string => realpathSync(mkdtempSync(join(tmpdir(), 'tether-tools-')));
const start = (input: Partial<AgentInput>, workflowId = `tools-${randomUUID()}`): Promise<WorkflowHandle> =>
  h.client.workflow.start('agentWorkflow', {
    taskQueue: h.taskQueue,
    workflowId,
    args: [{ task: 't', model: 'scripted', cwd: cwd(), ...input }],
  });
const state = (handle: WorkflowHandle): Promise<AgentState> => handle.query<AgentState>('state');
const call = (name: string, args: Record<string, unknown>): ScriptedReply => ({
  toolCalls: [{ name, arguments: args }],
});
const toolResult = (req: ChatRequest, back = 1): Record<string, unknown> =>
  JSON.parse(req.messages.filter((m) => m.role === 'tool').at(-back)!.content!) as Record<string, unknown>;

describe('todo and memory', () => {
  it('keeps the plan in workflow state (replace, merge, read) and reports bad arguments by field', async () => {
    const model = await startScriptedModel([
      call('todo', {
        todos: [
          { id: 'a', content: 'write tests', status: 'in_progress' },
          { id: 'b', content: 'ship', status: 'pending' },
        ],
      }),
      call('todo', { todos: [{ id: 'a', content: 'write tests', status: 'completed' }], merge: true }),
      call('todo', { todos: [{ id: 'c', status: 'nope' }] }),
      call('todo', {}),
      { content: 'planned' },
    ]);
    await h.withWorker(model.url, async () => {
      const handle = await start({});
      await handle.result();
      recordHistory(h.address, handle.workflowId, 'loop-tools');
      expect((await state(handle)).todo).toEqual([
        { id: 'a', content: 'write tests', status: 'completed' },
        { id: 'b', content: 'ship', status: 'pending' },
      ]);
    });
    const [, , bad, read] = model.requests.slice(1).map((r) => toolResult(r));
    expect(bad!.error).toMatch(/^Invalid arguments for todo: todos\.0\.content: .*; todos\.0\.status: /);
    expect(read).toMatchObject({ summary: { total: 2, completed: 1, pending: 1 } });
    await model.close();
  });

  it('keeps memory notes across runs and says clearly when memory is full or an entry is not found', async () => {
    const note = `the deploy key is in vault path secret/${randomUUID()}`;
    const model = await startScriptedModel([
      call('memory', { action: 'add', content: note }),
      call('memory', { action: 'add', content: 'x'.repeat(2_001) }),
      call('memory', { action: 'replace', old_text: 'nothing like this', content: 'y' }),
      { content: 'remembered' },
    ]);
    await h.withWorker(model.url, () => start({}).then((x) => x.result()));
    const [added, tooLong, missing] = model.requests.slice(1).map((r) => toolResult(r));
    expect((added!.notes as string[]).filter((n) => n === note)).toHaveLength(1);
    expect(tooLong!.error).toMatch(/at most 2000 characters/);
    expect(missing!.error).toMatch(/no memory entry contains "nothing like this"/);
    await model.close();

    const second = await startScriptedModel([
      call('memory', { action: 'read' }),
      call('memory', { action: 'remove', old_text: note }),
      { content: 'read' },
    ]);
    await h.withWorker(second.url, () => start({}).then((x) => x.result()));
    expect(toolResult(second.requests[1]!).notes).toContain(note);
    expect(toolResult(second.requests[2]!).notes).not.toContain(note);
    await second.close();
  });
});

describe('session_search', () => {
  it('finds words from a past run, naming the run and the turn', async () => {
    const word = `zebra${randomUUID().slice(0, 8)}`;
    const first = await startScriptedModel([
      call('terminal', { command: `echo the ${word} was found` }),
      { content: `done with ${word}` },
    ]);
    const firstId = `search-${randomUUID()}`;
    await h.withWorker(first.url, () => start({}, firstId).then((x) => x.result()));
    await first.close();
    const second = await startScriptedModel([
      call('session_search', { query: word }),
      call('session_search', { query: '"; DROP TABLE transcript; --' }),
      { content: 'found' },
    ]);
    await h.withWorker(second.url, () => start({}).then((x) => x.result()));
    const found = toolResult(second.requests[1]!) as {
      results: { run: string; turn: number; role: string; snippet: string }[];
    };
    expect(found.results.map((r) => [r.run, r.turn, r.role])).toEqual(
      expect.arrayContaining([
        [firstId, 1, 'tool'],
        [firstId, 2, 'assistant'],
      ]),
    );
    expect(found.results.find((r) => r.role === 'tool')!.snippet).toContain(`[${word}]`);
    expect(toolResult(second.requests[2]!)).toMatchObject({ results: expect.any(Array) });
    await second.close();
  });
});

describe('talking to a running agent', () => {
  it('clarify waits for tether answer, and says so when no answer comes in time', async () => {
    const model = await startScriptedModel([
      call('clarify', { question: 'Which database?', choices: ['postgres', 'sqlite'] }),
      call('clarify', { question: 'Anything else?' }),
      { content: 'ok' },
    ]);
    await h.withWorker(model.url, async () => {
      const handle = await start({ limits: { clarifyTimeoutSeconds: 3 } });
      let s: AgentState | undefined;
      await until('the question', async () => (s = await state(handle)).question !== undefined);
      expect(s!.question).toMatchObject({ question: 'Which database?', choices: ['postgres', 'sqlite'] });
      await handle.signal('answer', { text: 'mysql', questionId: 'q-wrong' }); // ignored: another question
      const answered = await runCli(['answer', handle.workflowId, 'sqlite'], {
        cwd: tmpdir(),
        env: { TEMPORAL_ADDRESS: h.address, TETHER_TASK_QUEUE: h.taskQueue },
      });
      expect(answered).toMatchObject({ code: 0, stdout: `answer sent to ${handle.workflowId}\n` });
      await handle.result();
    });
    expect(toolResult(model.requests[1]!)).toEqual({ answer: 'sqlite' });
    expect(toolResult(model.requests[2]!)).toMatchObject({
      no_answer: true,
      error: expect.stringMatching(/No answer within 3 seconds/),
    });
    await model.close();
  });

  it('a message signal reaches the next model call', async () => {
    const model = await startScriptedModel([
      { ...call('terminal', { command: 'sleep 4; echo slow' }) },
      (req) => ({
        content: `saw: ${req.messages
          .filter((m) => m.role === 'user')
          .map((m) => m.content)
          .join(' | ')}`,
      }),
    ]);
    await h.withWorker(model.url, async () => {
      const handle = await start({ task: 'first task' });
      await until('the first model call', () => model.requests.length >= 1);
      await handle.signal('message', { text: '' }); // ignored
      const said = await runCli(['say', handle.workflowId, 'also update the changelog'], {
        cwd: tmpdir(),
        env: { TEMPORAL_ADDRESS: h.address, TETHER_TASK_QUEUE: h.taskQueue },
      });
      expect(said).toMatchObject({ code: 0, stdout: `message sent to ${handle.workflowId}\n` });
      const tooLong = await runCli(['say', handle.workflowId, 'x'.repeat(20_001)], {
        cwd: tmpdir(),
        env: { TEMPORAL_ADDRESS: h.address },
      });
      expect(tooLong.code).toBe(2);
      expect(tooLong.stderr).toMatch(/at most 20000 are taken/);
      expect(((await handle.result()) as AgentResult).answer).toBe('saw: first task | also update the changelog');
    });
    await model.close();
  });
});

describe('delegate_task', () => {
  /** Children are recognised by their task ("sub: ..."); the parent follows `parent` by turn. */
  const routed = (parent: Step[], child: (goal: string, req: ChatRequest) => ScriptedReply): Step[] =>
    Array.from({ length: Math.max(parent.length, 3) }, (_, turn) => (req: ChatRequest) => {
      const task = String(req.messages[1]?.content ?? '');
      if (task.startsWith('sub:')) return child(task, req);
      const step = parent[turn];
      if (!step) return { status: 400, error: `parent script ran out at turn ${turn + 1}` };
      return typeof step === 'function' ? step(req) : step;
    });

  it('runs three children in parallel and returns their answers in order', async () => {
    const goals = ['sub: count apples', 'sub: count pears', 'sub: count plums'];
    const model = await startScriptedModel(
      routed(
        [call('delegate_task', { tasks: goals.map((goal) => ({ goal })) }), { content: 'all counted' }],
        (goal) => ({ delayMs: 1_500, content: `${goal} → 3` }),
      ),
    );
    await h.withWorker(model.url, async () => {
      const handle = await start({});
      expect(((await handle.result()) as AgentResult).answer).toBe('all counted');
      recordHistory(h.address, handle.workflowId, 'delegation');
      const children = (await state(handle)).children;
      expect(children.map((c) => [c.goal, c.status])).toEqual(goals.map((g) => [g, 'completed']));
      const times = await Promise.all(children.map(async (c) => h.client.workflow.getHandle(c.workflowId).describe()));
      // All three ran at once: each started before any finished.
      const lastStart = Math.max(...times.map((t) => t.startTime.getTime()));
      const firstClose = Math.min(...times.map((t) => t.closeTime!.getTime()));
      expect(lastStart).toBeLessThan(firstClose);
    });
    const result = toolResult(model.requests.at(-1)!) as {
      results: { goal: string; status: string; answer: string }[];
    };
    expect(result.results.map((r) => r.answer)).toEqual(goals.map((g) => `${g} → 3`));
    expect(
      model.requests.find((r) => String(r.messages[1]?.content).startsWith('sub:'))!.tools!.map((t) => t.function.name),
    ).not.toContain('delegate_task');
    await model.close();
  });

  it("lists a child's pending approval with the others, decides it the same way, and cancelling the parent cancels children", async () => {
    const dir = cwd();
    const model = await startScriptedModel(
      routed(
        [call('delegate_task', { tasks: [{ goal: 'sub: clean the cluster' }] }), { content: 'parent done' }],
        (_goal, req) =>
          req.messages.some((m) => m.role === 'tool')
            ? { content: 'child done' }
            : call('terminal', { command: 'kubectl delete pod old 2>/dev/null; echo cleaned' }),
      ),
    );
    await h.withWorker(model.url, async () => {
      const parent = await start({ cwd: dir });
      let pending: Awaited<ReturnType<typeof listPendingApprovals>>['approvals'] = [];
      await until(
        'the child approval to be listed',
        async () =>
          (pending = (await listPendingApprovals(h.client)).approvals.filter((a) =>
            a.workflowId.startsWith(`${parent.workflowId}--sub`),
          )).length > 0,
      );
      const child = h.client.workflow.getHandle(pending[0]!.workflowId);
      await child.executeUpdate('decideApproval', { args: [{ approvalId: pending[0]!.approvalId, choice: 'once' }] });
      expect(((await parent.result()) as AgentResult).answer).toBe('parent done');

      // A second parent whose child waits: cancelling the parent cancels the child.
      const parent2 = await start({ cwd: dir });
      await until('the second child to wait', async () =>
        (await listPendingApprovals(h.client)).approvals.some((a) =>
          a.workflowId.startsWith(`${parent2.workflowId}--sub`),
        ),
      );
      // A sub-agent cancelled on its own is a result for its parent, which goes on.
      const parent3 = await start({ cwd: dir });
      const child3 = `${parent3.workflowId}--sub1-1`;
      await until('the third child to wait', async () =>
        (await listPendingApprovals(h.client)).approvals.some((a) => a.workflowId === child3),
      );
      await h.client.workflow.getHandle(child3).cancel();
      expect(((await parent3.result()) as AgentResult).answer).toBe('parent done');
      expect((await state(parent3)).children.map((c) => c.status)).toEqual(['cancelled']);

      await parent2.cancel();
      await expect(parent2.result()).rejects.toBeInstanceOf(WorkflowFailedError);
      const childId = `${parent2.workflowId}--sub1-1`;
      await until(
        'the child to be cancelled',
        async () => (await h.client.workflow.getHandle(childId).describe()).status.name === 'CANCELLED',
      );
    });
    await model.close();
  });
});

describe('long conversations', () => {
  it('summarises older turns through a model call when the conversation grows, and records the summary', async () => {
    const big = 'data '.repeat(400);
    // Compaction removes assistant turns, so the step is chosen by content: echo until a summary is in the conversation.
    const step = (req: ChatRequest): ScriptedReply =>
      req.messages.some((m) => m.content?.startsWith('[Summary'))
        ? { content: `first message after the task: ${req.messages[2]!.content!.slice(0, 60)}` }
        : call('terminal', { command: `echo ${big}` });
    const model = await startScriptedModel(
      Array.from({ length: 20 }, () => step),
      { summariser: { content: 'The agent echoed data six times.' } },
    );
    let answer = '';
    await h.withWorker(model.url, async () => {
      const handle = await start({ compaction: { thresholdChars: 8_000, keepRecentMessages: 4, model: 'summariser' } });
      answer = ((await handle.result()) as AgentResult).answer;
      expect((await state(handle)).compactions).toBeGreaterThanOrEqual(1);
      // The summary is part of the run's transcript (the worker's store under this process's TETHER_HOME).
      const store = new Store();
      expect(
        store
          .search('echoed data six times', 5)
          .filter((r) => r.workflowId === handle.workflowId)
          .map((r) => r.role),
      ).toContain('summary');
      store.close();
    });
    expect(answer).toContain('[Summary of the earlier conversation');
    expect(model.requests.filter((r) => r.model === 'summariser').length).toBeGreaterThanOrEqual(1);
    await model.close();
  });

  it('continues as new when its history grows, keeping the workflow id, the plan and the counters', async () => {
    const turns = 12;
    const marker = `canmark${randomUUID().slice(0, 6)}`;
    const model = await startScriptedModel([
      call('todo', { todos: [{ id: 'a', content: 'loop', status: 'in_progress' }] }),
      ...Array.from({ length: turns - 2 }, (_, i) => call('terminal', { command: `echo ${marker}x${i}` })),
      (req) => ({ content: `messages: ${req.messages.length}` }),
    ]);
    await h.withWorker(model.url, async () => {
      const handle = await start({ limits: { continueAsNewAfterEvents: 40 } });
      const result = (await handle.result()) as AgentResult;
      expect(result).toMatchObject({ status: 'completed', turns, toolCalls: turns - 1 });
      const s = await state(handle);
      expect(s.continuedRuns).toBeGreaterThanOrEqual(2);
      expect(s.todo).toEqual([{ id: 'a', content: 'loop', status: 'in_progress' }]);
      expect(result.answer).toBe(`messages: ${2 + 2 * (turns - 1)}`);
      recordHistory(h.address, handle.workflowId, 'continued-as-new');
      // Every tool result is in the transcript, also those of turns that ended a run.
      const store = new Store();
      for (let i = 0; i < turns - 2; i += 1) {
        expect(
          store.search(`${marker}x${i}`, 5).filter((r) => r.workflowId === handle.workflowId && r.role === 'tool'),
        ).toHaveLength(1);
      }
      store.close();
    });
    expect(lastToolResults(model)).toHaveLength(turns - 1);
    await model.close();
  });
});
