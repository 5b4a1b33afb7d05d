// The agent-loop tools, handled by the workflow instead of dispatch: todo (workflow state), memory and
// session_search (through activities), delegate_task (child workflows), clarify (waits for an answer). Workflow-safe.
import {
  CancellationScope,
  condition,
  defineSignal,
  executeChild,
  isCancellation,
  log,
  proxyActivities,
  setHandler,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import {
  ClarifyArgs,
  DelegateArgs,
  MemoryArgs,
  parseLoopArgs,
  SessionSearchArgs,
  TodoArgs,
  type TodoItem,
} from '../common/loop-schemas.js';
import type { AgentActivities } from '../common/activity-contract.js';
import type { agentWorkflow } from './agent-workflow.js';
import type { AgentInput, AgentState, ToolCallView } from '../common/types.js';
import { ANSWER_SIGNAL } from '../common/workflow-messages.js';

export const answerSignal = defineSignal<[{ text: string; questionId?: string }]>(ANSWER_SIGNAL);

const store = proxyActivities<AgentActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '10 seconds', maximumAttempts: 5 },
  summary: 'store',
});

const error = (message: string): string => JSON.stringify({ error: message });

/**
 * The memory call's operation id, the same for every attempt and every worker: the run chain (its first run, which
 * continue-as-new keeps) and the call's number in it. A new run that reuses the workflow id gets new ids.
 */
function memoryOpId(index: number): string {
  const info = workflowInfo();
  return `${info.workflowId}/${info.firstExecutionRunId}/${index}`;
}

export class LoopTools {
  private answer: string | undefined;

  constructor(
    private readonly state: AgentState,
    private readonly input: AgentInput,
  ) {
    setHandler(answerSignal, (a) => {
      const q = this.state.question;
      if (
        !q ||
        typeof a?.text !== 'string' ||
        a.text.length > 20_000 ||
        (a.questionId !== undefined && a.questionId !== q.id)
      ) {
        log.warn('answer ignored: no matching question is pending', { questionId: a?.questionId });
        return;
      }
      this.answer = a.text;
    });
  }

  async run(name: string, args: string, view: ToolCallView): Promise<string> {
    switch (name) {
      case 'todo':
        return this.todo(args);
      case 'memory': {
        const p = parseLoopArgs(MemoryArgs, name, args);
        return p.ok ? (await store.memoryOp({ ...p.value, opId: memoryOpId(view.index) })).result : error(p.error);
      }
      case 'session_search': {
        const p = parseLoopArgs(SessionSearchArgs, name, args);
        return p.ok
          ? (
              await store.searchSessions({
                query: p.value.query,
                limit: p.value.limit ?? 10,
                excludeWorkflowId: workflowInfo().workflowId,
              })
            ).result
          : error(p.error);
      }
      case 'delegate_task':
        return this.delegate(args, view);
      case 'clarify':
        return this.clarify(args);
      default:
        return error(`Unknown agent-loop tool '${name}'`);
    }
  }

  private todo(args: string): string {
    const p = parseLoopArgs(TodoArgs, 'todo', args);
    if (!p.ok) return error(p.error);
    const { todos, merge } = p.value;
    if (todos) {
      if (merge) {
        const byId = new Map<string, TodoItem>(this.state.todo.map((t) => [t.id, t]));
        for (const t of todos) byId.set(t.id, { ...byId.get(t.id), ...t });
        this.state.todo = [...byId.values()];
      } else {
        this.state.todo = todos;
      }
    }
    const count = (s: TodoItem['status']): number => this.state.todo.filter((t) => t.status === s).length;
    return JSON.stringify({
      todos: this.state.todo,
      summary: {
        total: this.state.todo.length,
        pending: count('pending'),
        in_progress: count('in_progress'),
        completed: count('completed'),
        cancelled: count('cancelled'),
      },
    });
  }

  private async clarify(args: string): Promise<string> {
    const p = parseLoopArgs(ClarifyArgs, 'clarify', args);
    if (!p.ok) return error(p.error);
    const seconds = this.input.limits?.clarifyTimeoutSeconds ?? 3600;
    const now = Date.now();
    this.answer = undefined;
    this.state.question = {
      id: `q-${uuid4().slice(0, 8)}`,
      question: p.value.question,
      choices: p.value.choices,
      askedAt: new Date(now).toISOString(),
      expiresAt: new Date(now + seconds * 1000).toISOString(),
    };
    const answered = await condition(() => this.answer !== undefined, seconds * 1000);
    this.state.question = undefined;
    if (!answered)
      return JSON.stringify({
        error: `No answer within ${seconds} seconds. Decide yourself, or stop and explain what you need.`,
        no_answer: true,
      });
    return JSON.stringify({ answer: this.answer });
  }

  /** Each task a child agentWorkflow, at most `maxChildren` at once; the results come back in the tasks' order. */
  private async delegate(args: string, view: ToolCallView): Promise<string> {
    const p = parseLoopArgs(DelegateArgs, 'delegate_task', args);
    if (!p.ok) return error(p.error);
    const depth = (this.input.parent?.depth ?? 0) + 1;
    const parentId = workflowInfo().workflowId;
    const limit = this.input.limits?.maxChildren ?? 3;
    const tasks = p.value.tasks;
    const results: Record<string, unknown>[] = new Array(tasks.length);
    let next = 0;
    const worker = async (): Promise<void> => {
      for (let i = next++; i < tasks.length; i = next++) {
        const t = tasks[i]!;
        const workflowId = `${parentId}--sub${view.index}-${i + 1}`;
        const child = { workflowId, goal: t.goal, status: 'running' as const };
        this.state.children = [...this.state.children, child];
        const setStatus = (status: AgentState['children'][number]['status']): void => {
          this.state.children = this.state.children.map((c) => (c.workflowId === workflowId ? { ...c, status } : c));
        };
        try {
          // Sub-agents do not delegate further: their toolsets leave delegation out.
          const childInput: AgentInput = {
            task: t.goal,
            model: this.input.model,
            enabledToolsets: (t.toolsets ?? this.input.enabledToolsets)?.filter((s) => s !== 'delegation'),
            disabledToolsets: [...(this.input.disabledToolsets ?? []), 'delegation'],
            cwd: this.input.cwd,
            limits: { ...this.input.limits, maxTurns: t.max_turns ?? 30 },
            approvalMode: this.input.approvalMode,
            approvalTimeoutSeconds: this.input.approvalTimeoutSeconds,
            backend: this.input.backend,
            compaction: this.input.compaction,
            parent: { workflowId: parentId, depth },
          };
          // Typed by the workflow's function type; a value import of agentWorkflow would be an import cycle.
          const r = await executeChild<typeof agentWorkflow>('agentWorkflow', { workflowId, args: [childInput] });
          setStatus(r.status);
          results[i] = { goal: t.goal, workflow_id: workflowId, status: r.status, answer: r.answer, turns: r.turns };
        } catch (err) {
          // The parent's own cancellation goes on up; a child cancelled on its own (tether cancel <child>) is a result.
          if (isCancellation(err) && CancellationScope.current().consideredCancelled) throw err;
          if (isCancellation(err)) {
            setStatus('cancelled');
            results[i] = {
              goal: t.goal,
              workflow_id: workflowId,
              status: 'cancelled',
              error: 'The sub-agent was cancelled.',
            };
            continue;
          }
          setStatus('failed');
          let cause = err as { message?: string; cause?: unknown };
          while (cause?.cause && typeof cause.cause === 'object') cause = cause.cause as typeof cause;
          results[i] = {
            goal: t.goal,
            workflow_id: workflowId,
            status: 'failed',
            error: cause?.message ?? String(err),
          };
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
    return JSON.stringify({ results });
  }
}
