// The entry point the agent loop uses for a tool call: hooks, dispatch, and a last wrapper that turns anything into JSON. Worker-only.
import { describeError, isRetryable, toolError } from '../common/errors.js';
import type { ToolCallInfo } from './hooks.js';
import type { Hooks } from './hooks.js';
import { DEFAULT_MAX_RESULT_CHARS, type ToolRegistry } from './registry.js';
import { finalizeResult } from './result.js';
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
}

type CallOutcome =
  | { status: 'ok'; result: string }
  | { status: 'blocked'; result: string; message: string }
  | { status: 'approval_required'; result: string; reason: string };

function asObject(raw: unknown): Record<string, unknown> | null {
  let value = raw;
  if (typeof raw === 'string') {
    if (raw.trim() === '') return {};
    try {
      value = JSON.parse(raw);
    } catch {
      return null;
    }
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

async function callWithHooks(name: string, rawArgs: unknown, info: ToolCallInfo, o: CallOptions): Promise<CallOutcome> {
  let args: unknown = rawArgs;
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
  if (args !== rawArgs && o.checkModified && typeof args === 'object' && args !== null) {
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
  let result = await o.registry.dispatch(name, args, ctx);
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
      // A replacement goes through the same normalisation as a handler's result: capped, always JSON.
      if (typeof replaced === 'string')
        result = finalizeResult(name, replaced, o.registry.get(name)?.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS);
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
  name: string,
  rawArgs: unknown,
  taskId: string,
  userTask: string | undefined,
  o: CallOptions,
): Promise<CallOutcome> {
  try {
    return await callWithHooks(name, rawArgs, { name, args: asObject(rawArgs), taskId, userTask }, o);
  } catch (err) {
    if (isRetryable(err)) throw err;
    return { status: 'ok', result: toolError(`Error executing ${name}: ${describeError(err).message}`) };
  }
}
