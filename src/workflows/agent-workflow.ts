// The durable agent loop: model call → tool calls → results, until an answer or a limit. Workflow-safe (composition only).
import {
  ApplicationFailure,
  defineQuery,
  isCancellation,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { AgentActivities } from './activity-contract.js';
import { ApprovalBook } from './approvals.js';
import { keepWithinBudget } from './conversation-budget.js';
import { initialMessages } from './prompt.js';
import { runToolBatch } from './tool-batch.js';
import type { AgentInput, AgentResult, AgentState } from './types.js';

export const stateQuery = defineQuery<AgentState>('state');

const setup = proxyActivities<AgentActivities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 5, nonRetryableErrorTypes: ['Config.Invalid'] },
  summary: 'list tools',
});

function modelActivities(heartbeatSeconds: number): AgentActivities {
  return proxyActivities<AgentActivities>({
    startToCloseTimeout: '10 minutes',
    heartbeatTimeout: `${heartbeatSeconds} seconds`,
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 10 },
    summary: 'model call',
  });
}

function failureMessage(err: unknown): string {
  let e = err as { message?: string; cause?: unknown } | undefined;
  // ActivityFailure wraps the ApplicationFailure that carries the useful message.
  while (e?.cause && typeof e.cause === 'object') e = e.cause as typeof e;
  return e?.message ?? String(err);
}

export async function agentWorkflow(input: AgentInput): Promise<AgentResult> {
  const limits = input.limits ?? {};
  const maxTurns = limits.maxTurns ?? 50;
  const heartbeatTimeoutSeconds = limits.heartbeatTimeoutSeconds ?? 15;
  const model = modelActivities(heartbeatTimeoutSeconds);
  const state: AgentState = {
    status: 'running',
    model: input.model,
    turn: 0,
    toolCallCount: 0,
    currentToolCalls: [],
    lastToolCalls: [],
    recentToolCalls: [],
    usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
    pendingApprovals: [],
    approvals: { decided: [], rejected: [], sessionRules: [] },
  };
  const approvals = new ApprovalBook();
  setHandler(stateQuery, () => ({
    ...state,
    pendingApprovals: approvals.state.pending,
    approvals: { decided: approvals.state.decided, rejected: approvals.state.rejected, sessionRules: approvals.state.sessionRules },
  }));
  const finish = (status: AgentResult['status'], answer: string, stopReason?: string): AgentResult => {
    state.status = status;
    state.answer = answer;
    state.stopReason = stopReason;
    return { status, answer, turns: state.turn, toolCalls: state.toolCallCount, usage: state.usage, stopReason };
  };

  try {
    const messages = initialMessages(input);
    const catalog = await setup.listTools({ enabledToolsets: input.enabledToolsets, disabledToolsets: input.disabledToolsets });
    for (;;) {
      if (state.turn >= maxTurns) {
        return finish('limit_reached', `Stopped after ${maxTurns} turns (the max-turns limit) before the model gave a final answer.`, 'max_turns');
      }
      state.turn += 1;
      keepWithinBudget(messages);
      const reply = await model.callModel({ model: input.model, messages, tools: catalog.definitions });
      state.usage = {
        promptTokens: state.usage.promptTokens + reply.usage.promptTokens,
        completionTokens: state.usage.completionTokens + reply.usage.completionTokens,
        totalTokens: state.usage.totalTokens + reply.usage.totalTokens,
      };
      messages.push(reply.message);
      const calls = reply.message.tool_calls ?? [];
      if (calls.length === 0) return finish('completed', reply.message.content ?? '');
      const results = await runToolBatch(calls, state.turn, {
        state,
        meta: catalog.meta,
        cwd: input.cwd,
        taskId: input.sessionId ?? workflowInfo().workflowId,
        userTask: input.task,
        maxParallel: limits.maxParallel ?? 8,
        maxCallsPerTurn: limits.maxToolCallsPerTurn ?? 32,
        heartbeatTimeoutSeconds,
        approvals,
        model: input.model,
        approvalMode: input.approvalMode,
        approvalTimeoutSeconds: input.approvalTimeoutSeconds,
      });
      messages.push(...results);
    }
  } catch (err) {
    if (isCancellation(err)) {
      state.status = 'cancelled';
      throw err;
    }
    state.status = 'failed';
    state.error = failureMessage(err);
    throw ApplicationFailure.nonRetryable(state.error, 'Agent.Failed');
  }
}
