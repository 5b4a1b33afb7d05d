// The entry point the agent loop uses for a tool call: hooks, dispatch, and a last wrapper that turns anything into
// JSON; the result is capped once, here, as it leaves. Worker-only.
import { describeError, isRetryable, toolError } from '../common/errors.js';
import type { ToolCallInfo } from './hooks.js';
import type { Hooks } from './hooks.js';
import { DEFAULT_MAX_RESULT_CHARS, type ToolRegistry } from './registry.js';
import { redactToolOutput } from '../observability/redact-output.js';
import { capResult, normalizeResult } from './result.js';
import { toolCall, type ToolCall } from './tool-call.js';
import type { Logger } from '../logging/logger.js';
import type { ToolContext } from './types.js';

export interface CallOptions {
  registry: ToolRegistry;
  hooks: Hooks;
  log: Logger;
  cwd: string;
  allowOutsideCwd?: boolean;
  signal?: AbortSignal;
  progress?: ToolContext['progress'];
  /** The task had a terminal environment before (see ToolContext.environmentExpected). */
  environmentExpected?: boolean;
  /** The run's terminal backend (see ToolContext.backend). */
  backend?: string;
  /** The call was approved by a person already: a `require_approval` decision no longer stops it. */
  approved?: boolean;
  /** Checks arguments a hook modified; a returned message blocks the call (a changed command was never judged). */
  checkModified?: (args: Record<string, unknown>) => string | undefined;
  /** The most the result may be (default: the tool's own limit); a longer one is cut in the middle, once. */
  maxResultChars?: number;
}

type CallOutcome =
  | { status: 'ok'; result: string }
  | { status: 'blocked'; result: string; message: string }
  | { status: 'approval_required'; result: string; reason: string };

async function callWithHooks(call: ToolCall, info: ToolCallInfo, o: CallOptions): Promise<CallOutcome> {
  const { name } = call;
  let args: unknown = call.parsed;
  for (const { source, fn } of o.hooks.set.pre_tool_call) {
    let decision;
    try {
      decision = await fn({ ...info });
    } catch (err) {
      o.log.warn(
        { hook: 'pre_tool_call', source, tool: name, err: describeError(err) },
        'pre_tool_call hook threw; ignored',
      );
      continue;
    }
    if (!decision) continue;
    if (decision.action === 'block') {
      return {
        status: 'blocked',
        message: decision.message,
        result: toolError(`Blocked by ${source}: ${decision.message}`),
      };
    }
    if (decision.action === 'modify') {
      args = decision.args;
      info.args = decision.args;
    } else if (decision.action === 'require_approval' && !o.approved) {
      return {
        status: 'approval_required',
        reason: decision.reason,
        result: JSON.stringify({ error: `Approval required: ${decision.reason}`, approval_required: true }),
      };
    }
  }
  const modified = args !== call.parsed;
  if (modified && o.checkModified && typeof args === 'object' && args !== null) {
    const problem = o.checkModified(args as Record<string, unknown>);
    if (problem) return { status: 'blocked', message: problem, result: toolError(problem) };
  }
  const ctx: ToolContext = {
    taskId: info.taskId,
    cwd: o.cwd,
    userTask: info.userTask,
    allowOutsideCwd: o.allowOutsideCwd,
    signal: o.signal,
    progress: o.progress,
    environmentExpected: o.environmentExpected,
    backend: o.backend,
  };
  // Arguments a hook changed are new input, checked as the model's were; otherwise the call's own check stands.
  let result = await o.registry.run(modified ? toolCall(o.registry, name, args) : call, ctx);
  for (const { source, fn } of o.hooks.set.post_tool_call) {
    try {
      await fn({ ...info, result });
    } catch (err) {
      o.log.warn(
        { hook: 'post_tool_call', source, tool: name, err: describeError(err) },
        'post_tool_call hook threw; ignored',
      );
    }
  }
  for (const { source, fn } of o.hooks.set.transform_tool_result) {
    try {
      const replaced = await fn({ ...info, result });
      // A replacement is redacted and normalised as a handler's result is (capped with it, at the end).
      if (typeof replaced === 'string') result = normalizeResult(name, redactToolOutput(replaced));
    } catch (err) {
      o.log.warn(
        { hook: 'transform_tool_result', source, tool: name, err: describeError(err) },
        'transform_tool_result hook threw; ignored',
      );
    }
  }
  return { status: 'ok', result };
}

/** Like handleFunctionCall, and says whether the call ran, was blocked, or waits for an approval. */
export async function runToolCall(
  call: ToolCall,
  taskId: string,
  userTask: string | undefined,
  o: CallOptions,
): Promise<CallOutcome> {
  const max = o.maxResultChars ?? call.entry?.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS;
  let outcome: CallOutcome;
  try {
    outcome = await callWithHooks(call, { name: call.name, args: call.parsed, taskId, userTask }, o);
  } catch (err) {
    if (isRetryable(err)) throw err;
    outcome = { status: 'ok', result: toolError(`Error executing ${call.name}: ${describeError(err).message}`) };
  }
  return { ...outcome, result: capResult(call.name, outcome.result, max) };
}
