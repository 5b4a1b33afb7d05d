// The durable agent loop: model call → tool calls → results, until an answer or a limit; continues as new before
// its history grows too long, carrying what it needs. Workflow-safe (composition only).
import {
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  continueAsNew,
  ContinueAsNew,
  defineQuery,
  defineSignal,
  isCancellation,
  log,
  patched,
  proxyActivities,
  setHandler,
  TemporalFailure,
  workflowInfo,
} from '@temporalio/workflow';
import type { AgentActivities } from '../common/activity-contract.js';
import { ApprovalBook, EXACT_SCOPE_PATCH } from './approvals.js';
import { NetworkApprovals } from './egress-approvals.js';
import { compacted, planCompaction } from './compaction.js';
import { fitCarriedConversation, fitConversation } from './payload-budget.js';
import { ModelInput } from './model-input.js';
import { LoopTools } from './loop-tools.js';
import { initialMessages } from './prompt.js';
import { oversizedFollowUp } from './payload-limits.js';
import { runToolBatch } from './tool-batch.js';
import { TurnCheckpoints } from './checkpoints.js';
import { answerTaskText, taskForTools } from './task-text.js';
import { forgetLostWorker, releaseEnvironment, type EnvironmentRoute } from './environment-route.js';
import { transcriptEntries, type TranscriptEntry } from '../common/transcript.js';
import type { AgentInput, AgentResult, AgentState, ChatMessage, TokenUsage } from '../common/types.js';
import { MESSAGE_SIGNAL, STATE_QUERY } from '../common/workflow-messages.js';
import { capText } from './summary.js';
import { publishVisibility } from './visibility.js';
import { handleConversationTurns } from './conversation-turn.js';
import { modelCallQueue } from '../common/task-queues.js';

export const stateQuery = defineQuery<AgentState>(STATE_QUERY);
/** A user instruction for a running agent, taken at its next turn (`tether say`). */
export const messageSignal = defineSignal<[{ text: string }]>(MESSAGE_SIGNAL);

const MAX_MESSAGE_CHARS = 20_000;
/** Added when the run began to close only once its handlers finished (see settleHandlers). */
const HANDLERS_FINISH_PATCH = 'handlers-finish-before-close';
/** Added when a bug in workflow code began to fail the workflow task instead of the run. */
const WORKFLOW_BUGS_PATCH = 'workflow-bugs-fail-the-task';
const RECENT_REPLIES = 20;

const setup = proxyActivities<AgentActivities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 5, nonRetryableErrorTypes: ['Config.Invalid'] },
  summary: 'list tools',
});

const store = proxyActivities<AgentActivities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 5 },
  summary: 'transcript',
});

/**
 * Added when model calls got a task queue of their own, with slots of their own on every worker (a flood of tool
 * calls cannot hold a model call up, nor the other way round). Runs recorded before schedule them on the run's queue.
 */
const MODEL_QUEUE_PATCH = 'model-calls-own-queue';

function modelActivities(heartbeatSeconds: number): AgentActivities {
  return proxyActivities<AgentActivities>({
    ...(patched(MODEL_QUEUE_PATCH) ? { taskQueue: modelCallQueue(workflowInfo().taskQueue) } : {}),
    startToCloseTimeout: '10 minutes',
    heartbeatTimeout: `${heartbeatSeconds} seconds`,
    // A lost worker's call is taken over as soon as its heartbeat timeout says so.
    retry: {
      initialInterval: '500 milliseconds',
      backoffCoefficient: 2,
      maximumInterval: '1 minute',
      maximumAttempts: 10,
    },
    // No summary: the UI shows the activity type (callModel) in its place, and a summary is recorded with every call
    // (~43 bytes a turn). The input shows the new messages, the result the reply.
  });
}

function failureMessage(err: unknown): string {
  let e = err as { message?: string; cause?: unknown } | undefined;
  // ActivityFailure wraps the ApplicationFailure that carries the useful message.
  while (e?.cause && typeof e.cause === 'object') e = e.cause as typeof e;
  return e?.message ?? String(err);
}

const addUsage = (a: TokenUsage, b: TokenUsage): TokenUsage => ({
  promptTokens: a.promptTokens + b.promptTokens,
  completionTokens: a.completionTokens + b.completionTokens,
  totalTokens: a.totalTokens + b.totalTokens,
});

export async function agentWorkflow(input: AgentInput): Promise<AgentResult> {
  const limits = input.limits ?? {};
  const carry = input.carry;
  const maxTurns = limits.maxTurns ?? 50;
  // Heartbeats arrive every second: 2 s without one is a lost worker, taken over by another. (The server checks
  // the timeout lazily, so a lost worker is noticed 2 to 4 s after its last heartbeat.)
  const heartbeatTimeoutSeconds = limits.heartbeatTimeoutSeconds ?? 2;
  const model = modelActivities(heartbeatTimeoutSeconds);
  const { workflowId } = workflowInfo();
  const state: AgentState = {
    status: 'running',
    model: input.model,
    turn: carry?.turn ?? 0,
    toolCallCount: carry?.toolCallCount ?? 0,
    currentToolCalls: [],
    lastToolCalls: [],
    recentToolCalls: [],
    usage: carry?.usage ?? { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
    pendingApprovals: [],
    approvals: { decided: [], rejected: [], sessionRules: [] },
    todo: carry?.todo ?? [],
    children: [],
    continuedRuns: carry?.continuedRuns ?? 0,
    compactions: carry?.compactions ?? 0,
    recentReplies: [],
    ...(input.conversation ? { answers: carry?.answers ?? 0, idle: false } : {}),
  };
  /** Conversations count max-turns per message; other runs from their start. */
  let messageTurn = carry?.messageTurn ?? 0;
  const approvals = new ApprovalBook({ sessionRules: carry?.sessionRules, sessionScopes: carry?.sessionScopes });
  const network = new NetworkApprovals(
    approvals,
    { mode: input.approvalMode, timeoutSeconds: input.approvalTimeoutSeconds },
    // A call whose command waits at the egress proxy shows as awaiting approval, as one the gate holds does.
    (callId, waiting) => {
      const view = state.currentToolCalls.find((c) => c.id === callId);
      if (view && (view.status === 'running' || view.status === 'awaiting_approval'))
        view.status = waiting ? 'awaiting_approval' : 'running';
    },
  );
  const loop = new LoopTools(state, input);
  const checkpoints = new TurnCheckpoints({ cwd: input.cwd, heartbeatTimeoutSeconds, state });
  const pendingMessages = [...(carry?.pendingMessages ?? [])];
  let transcriptSeq = carry?.transcriptSeq ?? 0;
  const taskId = input.sessionId ?? workflowId;
  const environment: EnvironmentRoute = {
    ...carry?.environment,
    pinSeconds: limits.environmentWorkerTimeoutSeconds ?? 10,
  };
  // Tool inputs name the task by digest; a worker whose hook or tool reads it asks for the text (taskText query).
  answerTaskText(input.task);
  const toolTask = taskForTools(input.task);
  const visibility = publishVisibility(input, () => ({ state, pending: approvals.state.pending }));
  /**
   * Before the run closes, nothing is left half-handled: a network question still waiting for a person is answered
   * (the run ended, so the connection is refused), and every signal and update handler finishes. Runs recorded
   * before this closed with handlers still running; they replay as they ran.
   */
  const settleHandlers = async (): Promise<void> => {
    if (allHandlersFinished() || !patched(HANDLERS_FINISH_PATCH)) return;
    network.close('the run ended before anyone decided');
    await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
  };
  /** A run that ends (not one that continues as new) closes its environment on the worker holding it. */
  const ended = async (result: AgentResult): Promise<AgentResult> => {
    visibility?.flush();
    await releaseEnvironment(environment, taskId);
    await settleHandlers();
    return result;
  };
  setHandler(stateQuery, () => ({
    ...state,
    pendingApprovals: approvals.state.pending,
    approvals: {
      decided: approvals.state.decided,
      rejected: approvals.state.rejected,
      sessionRules: approvals.state.sessionRules,
      sessionScopes: approvals.state.sessionScopes,
    },
    ...(network.reached.length > 0 ? { network: network.reached } : {}),
    ...(Object.keys(approvals.notices.byApproval).length > 0 ? { approvalNotices: approvals.notices.byApproval } : {}),
  }));
  setHandler(messageSignal, (m) => {
    if (typeof m?.text !== 'string' || m.text.trim() === '' || m.text.length > MAX_MESSAGE_CHARS) {
      log.warn('message ignored: it must be a non-empty string of at most 20000 characters');
      return;
    }
    pendingMessages.push(m.text);
  });
  if (input.conversation)
    handleConversationTurns(
      input.turnId,
      (text) => pendingMessages.push(text),
      () => state.answers ?? 0,
    );
  const finish = (status: AgentResult['status'], answer: string, stopReason?: string): AgentResult => {
    state.status = status;
    state.answer = answer;
    state.stopReason = stopReason;
    const reached = network.reached.length > 0 ? { network: network.reached } : {};
    return {
      status,
      answer,
      turns: state.turn,
      toolCalls: state.toolCallCount,
      usage: state.usage,
      stopReason,
      ...reached,
    };
  };
  /** A conversation answered: it waits, durably and for as long as it takes, for the next message. */
  const waitForMessage = async (answer: string, stopReason?: string): Promise<void> => {
    state.answer = answer;
    state.stopReason = stopReason;
    state.answers = (state.answers ?? 0) + 1;
    state.idle = true;
    await condition(() => pendingMessages.length > 0);
    state.idle = false;
    state.stopReason = undefined;
    messageTurn = state.turn;
  };
  const historyIsLong = (): boolean => {
    const info = workflowInfo();
    return (
      info.continueAsNewSuggested ||
      info.historyLength >= (limits.continueAsNewAfterEvents ?? 5_000) ||
      info.historySize >= (limits.continueAsNewAfterBytes ?? 8_000_000)
    );
  };

  try {
    let messages: ChatMessage[] = initialMessages(input);
    // After continue-as-new the carried conversation is already in the transcript.
    let recorded = carry ? messages.length : 0;
    // Model calls record what is new since the last one; the worker holds the rest (see model-input.ts).
    const modelInput = new ModelInput(carry?.modelInput, messages, limits.wholeConversationInHistory);
    const catalog = await setup.listTools({
      enabledToolsets: input.enabledToolsets,
      disabledToolsets: input.disabledToolsets,
    });
    // Messages not yet in the transcript (the last tool results) are recorded before they leave this run's view.
    const recordPending = async (extra: TranscriptEntry[] = []): Promise<void> => {
      const entries = [
        ...transcriptEntries(messages, recorded, transcriptSeq, state.turn),
        ...extra.map((e, k) => ({ ...e, seq: transcriptSeq + (messages.length - recorded) + k })),
      ];
      if (entries.length === 0) return;
      await store.recordTranscript({ workflowId, entries });
      transcriptSeq += entries.length;
      recorded = messages.length;
    };
    const startTurn = state.turn;
    for (;;) {
      // At least one turn per run, so a carried state that is itself large cannot continue as new forever.
      if (state.turn > startTurn && historyIsLong()) {
        await recordPending();
        // Signals and updates being handled finish first, so nothing is lost across the transition.
        await condition(allHandlersFinished);
        // The whole transcript is recorded above; the next run's input carries the conversation within its budget.
        fitCarriedConversation(messages);
        const carried = {
          turn: state.turn,
          toolCallCount: state.toolCallCount,
          usage: state.usage,
          todo: state.todo,
          sessionRules: approvals.state.sessionRules,
          ...(approvals.state.sessionScopes.length > 0 ? { sessionScopes: approvals.state.sessionScopes } : {}),
          transcriptSeq,
          pendingMessages,
          continuedRuns: state.continuedRuns + 1,
          compactions: state.compactions,
          environment: { queue: environment.queue, had: environment.had },
          modelInput: modelInput.carry(),
          ...(input.conversation ? { answers: state.answers, messageTurn } : {}),
        };
        return await continueAsNew<typeof agentWorkflow>({ ...input, messages, carry: carried });
      }
      if (state.turn - messageTurn >= maxTurns) {
        const note = `Stopped after ${maxTurns} turns (the max-turns limit) before the model gave a final answer.`;
        if (!input.conversation) return await ended(finish('limit_reached', note, 'max_turns'));
        await waitForMessage(note, 'max_turns');
      }
      state.turn += 1;
      if (pendingMessages.length > 0)
        messages.push(...pendingMessages.splice(0).map((text): ChatMessage => ({ role: 'user', content: text })));
      const plan = planCompaction(messages, input.compaction);
      if (plan) {
        const summary = await modelInput.call(model, {
          model: input.compaction?.model ?? input.model,
          messages: plan.middle,
          tools: [],
          summarise: true,
        });
        state.usage = addUsage(state.usage, summary.usage);
        await recordPending([{ seq: 0, turn: state.turn, role: 'summary', content: summary.message.content ?? '' }]);
        messages = compacted(plan, summary.message.content ?? '(no summary)');
        recorded = messages.length;
        state.compactions += 1;
      }
      fitConversation(messages);
      const fromIndex = Math.min(recorded, messages.length);
      const reply = await modelInput.call(model, {
        model: input.model,
        messages,
        tools: catalog.definitions,
        // The run is the activity's own workflow (it reads the id from its context), so the input does not name it.
        transcript: { turn: state.turn, fromIndex, firstSeq: transcriptSeq },
      });
      transcriptSeq += messages.length - fromIndex + 1;
      state.usage = addUsage(state.usage, reply.usage);
      forgetLostWorker(environment, reply.lostWorker);
      messages.push(reply.message);
      recorded = messages.length;
      if (reply.message.content) {
        state.recentReplies = [
          ...(state.recentReplies ?? []),
          { turn: state.turn, text: capText(reply.message.content) },
        ].slice(-RECENT_REPLIES);
      }
      if (reply.oversized) {
        // The model is told and asked again; the shortened reply it gave is what it sees of its own turn.
        messages.push(...oversizedFollowUp({ ...reply, oversized: reply.oversized }));
        continue;
      }
      const calls = reply.message.tool_calls ?? [];
      if (calls.length === 0) {
        if (pendingMessages.length > 0) continue; // an instruction arrived during the last model call
        if (!input.conversation) return await ended(finish('completed', reply.message.content ?? ''));
        await waitForMessage(reply.message.content ?? '');
        continue;
      }
      const results = await runToolBatch(calls, state.turn, {
        state,
        meta: catalog.meta,
        cwd: input.cwd,
        taskId,
        environment,
        backend: input.backend,
        task: toolTask(),
        maxParallel: limits.maxParallel ?? 8,
        maxCallsPerTurn: limits.maxToolCallsPerTurn ?? 32,
        heartbeatTimeoutSeconds,
        approvals,
        loop,
        checkpoints,
        model: input.model,
        approvalMode: input.approvalMode,
        approvalTimeoutSeconds: input.approvalTimeoutSeconds,
        onToolResult: (callId, result) => modelInput.noteToolResult(callId, result),
      });
      messages.push(...results);
    }
  } catch (err) {
    if (err instanceof ContinueAsNew) throw err;
    // A bug in this code (a TypeError, ...) is not the run's failure: it fails the workflow task, which Temporal
    // retries and the UI shows, so a fixed build takes the run on from where it stopped. The run fails only for
    // what Temporal means by failure: an activity (a tool, the model) or a child that gave up, a bad input, a
    // cancellation. Runs that failed on such a bug before this change replay as they ran.
    if (!(err instanceof TemporalFailure) && patched(WORKFLOW_BUGS_PATCH)) throw err;
    await releaseEnvironment(environment, taskId);
    if (isCancellation(err)) {
      state.status = 'cancelled';
      // The run's listing says it is cancelled, with nothing pending, before it closes.
      if (patched(EXACT_SCOPE_PATCH)) visibility?.flush();
      await settleHandlers();
      throw err;
    }
    state.status = 'failed';
    state.error = failureMessage(err);
    await settleHandlers();
    throw ApplicationFailure.nonRetryable(state.error, 'Agent.Failed');
  }
}
