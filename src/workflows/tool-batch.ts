// Runs one turn's tool calls as activities: ordered segments, bounded concurrency, results in the model's order. Workflow-safe.
import {
  ActivityCancellationType,
  ActivityFailure,
  ApplicationFailure,
  isCancellation,
  patched,
  proxyActivities,
  TimeoutFailure,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { AgentActivities, RunToolInput, RunToolOutput } from '../common/activity-contract.js';
import { normalizePath } from '../common/paths.js';
import { argsDigest, type ApprovalMode } from '../common/approval-types.js';
import { EXACT_SCOPE_PATCH, type ApprovalBook, type GateRequest } from './approvals.js';
import type { LoopTools } from './loop-tools.js';
import type { TurnCheckpoints } from './checkpoints.js';
import { forgetLostWorker, runRouted, type EnvironmentRoute } from './environment-route.js';
import { HOLDER_LOST } from '../common/task-queues.js';
import { assessRouted } from './gate-route.js';
import { chunk, planSegments, type PlannedCall } from './batching.js';
import { capText, summariseArgs } from './summary.js';
import { capLoopResult } from './payload-limits.js';
import type { AgentState, ChatMessage, ModelToolCall, ToolCallView, ToolMeta } from '../common/types.js';

interface BatchContext {
  state: AgentState;
  meta: Record<string, ToolMeta>;
  cwd: string;
  taskId: string;
  /** What each tool input says of the run's task (src/workflows/task-text.ts). */
  task: Pick<RunToolInput, 'userTask' | 'userTaskRef'>;
  maxParallel: number;
  maxCallsPerTurn: number;
  heartbeatTimeoutSeconds: number;
  approvals: ApprovalBook;
  loop: LoopTools;
  model: string;
  approvalMode?: ApprovalMode;
  approvalTimeoutSeconds?: number;
  /** Where the task's terminal environment lives. */
  environment: EnvironmentRoute;
  /** The run's terminal backend, when it overrides the worker's. */
  backend?: string;
  /** Takes the turn's checkpoint before its first call that may change files (checkpoints.ts). */
  checkpoints?: TurnCheckpoints;
  /** A tool activity returned this result (the worker that ran it holds it; see model-input.ts). */
  onToolResult?: (callId: string, result: string) => void;
}

const RECENT = 20;
/** Added when cancellation began to wait for tool calls; histories recorded before it replay as they ran. */
const CANCEL_WAITS_PATCH = 'cancel-waits-for-tools';

/**
 * Retries only where running twice is harmless. A world-changing call gets a second attempt only to learn that the
 * first was interrupted: the worker then reports it instead of running it again (at most once).
 */
function activityOptions(meta: ToolMeta | undefined, call: ToolCallView, heartbeatSeconds: number): ActivityOptions {
  const safe = meta !== undefined && meta.sideEffects !== 'changes-world';
  return {
    // A cancelled run waits until its tool calls say they stopped (their processes are gone) before it ends.
    ...(patched(CANCEL_WAITS_PATCH) ? { cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED } : {}),
    startToCloseTimeout: `${(meta?.timeoutSeconds ?? 300) + 30} seconds`,
    heartbeatTimeout: `${heartbeatSeconds} seconds`,
    retry: safe
      ? {
          initialInterval: '500 milliseconds',
          backoffCoefficient: 2,
          maximumInterval: '30 seconds',
          maximumAttempts: 5,
        }
      : // A later attempt never runs the call blindly: on the worker whose earlier attempt still runs it takes that
        // one over; it runs the call only when every earlier attempt provably ran nothing (each reached its worker
        // after the server had given it up); otherwise it reports the call interrupted (src/liveness). Attempts past
        // the second matter only on a worker too starved to start one within the heartbeat timeout.
        {
          initialInterval: '200 milliseconds',
          backoffCoefficient: 2,
          maximumInterval: '2 seconds',
          maximumAttempts: 5,
        },
    summary: `${call.emoji} ${call.name}: ${call.summary}`,
  };
}

function failureResult(name: string, meta: ToolMeta | undefined, err: ActivityFailure): string {
  const cause = err.cause;
  const why =
    cause instanceof TimeoutFailure
      ? `the worker running it was lost or it ran past its time limit (${String(cause.timeoutType ?? 'unknown')
          .toLowerCase()
          .replace(/_/g, '-')} timeout)`
      : cause instanceof ApplicationFailure
        ? `${cause.type ?? 'error'}: ${cause.message}`
        : (cause?.message ?? err.message);
  const retried = meta !== undefined && meta.sideEffects !== 'changes-world';
  const advice = retried
    ? 'It was retried and still failed.'
    : 'It changes the world, so it was not run again: it may have partly run. Check its effects before repeating it.';
  // The last output a lost command reported in its heartbeats is what the model can check its effects against.
  const details =
    cause instanceof TimeoutFailure ? (cause.lastHeartbeatDetails as { output_tail?: unknown } | undefined) : undefined;
  const tail = typeof details?.output_tail === 'string' ? { output_before_interruption: details.output_tail } : {};
  const lost = cause instanceof TimeoutFailure || (cause instanceof ApplicationFailure && cause.type === HOLDER_LOST);
  const interrupted = lost && !retried ? { interrupted: true } : {};
  return JSON.stringify({ error: `Tool '${name}' did not complete: ${why}. ${advice}`, ...interrupted, ...tail });
}

/** The shell command in a call's arguments, when the tool declares one. */
function commandOf(args: string, commandArg: string | undefined): string | undefined {
  if (!commandArg) return undefined;
  try {
    const parsed = JSON.parse(args || '{}') as Record<string, unknown>;
    const value =
      parsed && typeof parsed === 'object' && Object.hasOwn(parsed, commandArg) ? parsed[commandArg] : undefined;
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined; // dispatch reports the malformed arguments
  }
}

/** The directory a command runs in: the run's cwd, or the tool's working-directory argument resolved against it. */
function commandCwd(args: string, cwdArg: string | undefined, cwd: string): string {
  if (!cwdArg) return cwd;
  try {
    const value = (JSON.parse(args || '{}') as Record<string, unknown>)[cwdArg];
    if (typeof value !== 'string' || value === '') return cwd;
    return normalizePath(value.startsWith('/') ? value : `${cwd}/${value}`);
  } catch {
    return cwd;
  }
}

/** Added with the gate for every channel (stdin, process input, scripts by path, execute_code); older histories replay without it. */
const GATE_PATCH = 'gate-every-channel';
/**
 * Added when a gated call's check moved into the tool's own activity (runGatedTool): one activity and one workflow
 * task fewer for every call nobody needs to decide. Older histories replay with the check as its own activity.
 */
const GATE_IN_RUN_PATCH = 'gate-in-tool-activity';
/**
 * Each verdict binds the files it was reached on: a call run after a decision (or let through by the policy) is
 * compared with them first, and sent back with its new verdict when they changed. This many times, then it is not
 * run: something keeps rewriting what it runs.
 */
const MAX_VERDICTS = 4;

/** The gate, with its own failures (an approval activity giving up) turned into a result that says nothing ran. */
async function gateOrExplain(
  ctx: BatchContext,
  req: GateRequest,
  judge?: () => Promise<GateRequest | undefined>,
): Promise<Awaited<ReturnType<ApprovalBook['gate']>>> {
  try {
    if (judge) {
      const judged = await judge();
      if (!judged) return { run: true, approved: false };
      req = judged;
    }
    return await ctx.approvals.gate(req);
  } catch (err) {
    if (isCancellation(err) || !(err instanceof ActivityFailure)) throw err;
    const why = err.cause instanceof ApplicationFailure ? err.cause.message : (err.cause?.message ?? err.message);
    return {
      run: false,
      result: JSON.stringify({
        error: `The approval check failed (${why}), so the command was not run. Try again later.`,
      }),
    };
  }
}

async function runOne(call: PlannedCall, view: ToolCallView, ctx: BatchContext): Promise<string> {
  // A call without metadata (unknown or filtered-out tool) still goes to the worker: dispatch gives the precise error.
  const options = activityOptions(call.meta, view, ctx.heartbeatTimeoutSeconds);
  const acts = proxyActivities<AgentActivities>(options);
  /** `gated`: the activity judges the call first and runs it only when nobody needs to decide (runGatedTool). */
  const runTool = async (input: RunToolInput, gated = false): Promise<RunToolOutput> => {
    let out: RunToolOutput;
    if (call.meta?.environment) out = await runRouted(ctx.environment, options, call.meta, input, gated);
    else {
      out = await (gated ? acts.runGatedTool : acts.runTool)(input);
      forgetLostWorker(ctx.environment, out.lostWorker);
    }
    // A call sent back for a decision ran nothing: its result comes later.
    if (!out.assessment) ctx.onToolResult?.(input.callId, out.result);
    return out;
  };
  const gateRequest = (command: string): GateRequest => ({
    callId: view.id,
    tool: call.name,
    command,
    args: call.args,
    argsDigest: argsDigest(call.args),
    cwd: commandCwd(call.args, call.meta?.cwdArg, ctx.cwd),
    model: ctx.model,
    mode: ctx.approvalMode,
    timeoutSeconds: ctx.approvalTimeoutSeconds,
  });
  /** The gate's decision, with the call shown as awaiting approval while it is made. */
  const decide = async (req: GateRequest, judge?: () => Promise<GateRequest | undefined>) => {
    view.status = 'awaiting_approval';
    const gate = await gateOrExplain(ctx, req, judge);
    view.status = 'running';
    return gate;
  };
  /** Recorded before the check moved into the tool's activity: the check as an activity of its own. */
  const assessOnItsOwn = async (): Promise<GateRequest | undefined> => {
    const a = await assessRouted(
      ctx.environment,
      call.meta?.environment === true,
      {
        name: call.name,
        args: call.args,
        taskId: ctx.taskId,
        cwd: ctx.cwd,
        ...(ctx.backend ? { backend: ctx.backend } : {}),
      },
      ctx.heartbeatTimeoutSeconds,
    );
    return a.dangerous ? { ...gateRequest(a.command), assessment: a } : undefined;
  };
  try {
    // Agent-loop tools (todo, memory, delegate_task, ...) run in the workflow; their activity failures become results too.
    // Capped like tool results: sub-agents' answers together could otherwise pass Temporal's payload limit.
    if (call.meta?.agentLoop) return capLoopResult(await ctx.loop.run(call.name, call.args, view));
    await ctx.checkpoints?.before(call.meta, call.name, view);
    let approved = false;
    const command = commandOf(call.args, call.meta?.commandArg);
    const input: RunToolInput = {
      name: call.name,
      args: call.args,
      callId: view.id,
      taskId: ctx.taskId,
      ...ctx.task,
      cwd: ctx.cwd,
      approved,
      ...(ctx.backend ? { backend: ctx.backend } : {}),
    };
    let out: RunToolOutput;
    const gated = call.meta?.gated && patched(GATE_PATCH);
    if (gated && patched(GATE_IN_RUN_PATCH)) {
      // One mechanism for every tool: the tool says what the call would run, and its own activity judges that (on
      // the worker holding its environment, where scripts are read) and runs it when nobody needs to decide.
      // Otherwise the verdict comes back unrun, the gate decides here, and an approved call runs without a new check.
      out = await runTool(input, true);
      // Older histories: one verdict, and the call ran on it without a second look at its files.
      for (let verdicts = 1; out.assessment; verdicts += 1) {
        const judged = out.assessment;
        if (verdicts > MAX_VERDICTS)
          return JSON.stringify({
            error: `Not run: ${judged.changed?.join(', ') ?? 'what this call runs'} changed again between the check and the run, ${MAX_VERDICTS} times. Find out what keeps rewriting it, or run it another way.`,
          });
        const gate = await decide({ ...gateRequest(judged.command), assessment: judged });
        if (!gate.run) return gate.result;
        approved = gate.approved;
        const bound = patched(EXACT_SCOPE_PATCH) ? { bound: judged.reads ?? {} } : {};
        out = await runTool({ ...input, approved, ...bound });
      }
    } else {
      // Histories recorded before: the gated tool's check as an activity of its own, or (before the gate judged every
      // channel) the command alone; then the call.
      const gate = gated
        ? await decide(gateRequest(command ?? ''), assessOnItsOwn)
        : command !== undefined
          ? await decide(gateRequest(command))
          : undefined;
      if (gate && !gate.run) return gate.result;
      approved = gate?.approved ?? false;
      out = await runTool({ ...input, approved });
    }
    if (out.status === 'approval_required' && !approved) {
      // A plugin's pre_tool_call hook asked for a person: the same gate, with its reason as the finding.
      const reason = out.reason ?? 'a plugin hook asked for approval';
      const gate = await decide({
        ...gateRequest(command ?? call.args),
        findings: [{ rule: `hook:${call.name}`, tier: 'dangerous', description: reason }],
      });
      if (!gate.run) return gate.result;
      out = await runTool({ ...input, approved: true });
    }
    return out.result;
  } catch (err) {
    if (isCancellation(err)) throw err;
    if (err instanceof ActivityFailure) return failureResult(call.name, call.meta, err);
    throw err;
  }
}

/** Like Promise.all, but a cancellation does not end the batch while its other calls are still stopping. */
async function allSettledOrThrow(runs: Promise<void>[]): Promise<void> {
  const settled = await Promise.allSettled(runs);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
}

function isError(result: string): boolean {
  return result.startsWith('{"error"');
}

/** Runs the calls and returns one `tool` message per call, in the order the model gave them. */
export async function runToolBatch(calls: ModelToolCall[], turn: number, ctx: BatchContext): Promise<ChatMessage[]> {
  const { state } = ctx;
  const results: string[] = new Array<string>(calls.length);
  // Tool names come from the model: an own-property lookup, so '__proto__' finds nothing.
  const metas = calls.map((c) => (Object.hasOwn(ctx.meta, c.function.name) ? ctx.meta[c.function.name] : undefined));
  // Calls past the per-turn limit are refused, not run: they are not counted as tool calls of the run.
  const ran = Math.min(calls.length, ctx.maxCallsPerTurn);
  const views: ToolCallView[] = calls.map((c, i) => {
    const meta = metas[i];
    return {
      index: state.toolCallCount + Math.min(i, ran - 1) + 1,
      turn,
      id: c.id,
      name: c.function.name,
      emoji: meta?.emoji ?? '❔',
      summary: summariseArgs(c.function.arguments),
      status: 'running',
      args: capText(c.function.arguments),
    };
  });
  state.toolCallCount += ran;
  state.currentToolCalls = views;
  state.recentToolCalls = [...state.recentToolCalls, ...views].slice(-RECENT);

  const planned: PlannedCall[] = [];
  calls.forEach((c, i) => {
    if (i >= ctx.maxCallsPerTurn) {
      results[i] = JSON.stringify({
        error: `Not run: more than ${ctx.maxCallsPerTurn} tool calls in one turn. Ask for fewer at a time.`,
      });
      views[i]!.status = 'error';
      views[i]!.summary = `not run (over ${ctx.maxCallsPerTurn} calls in one turn)`;
      return;
    }
    planned.push({ position: i, name: c.function.name, args: c.function.arguments, meta: metas[i] });
  });

  for (const segment of planSegments(planned, ctx.cwd)) {
    for (const slice of chunk(segment, ctx.maxParallel)) {
      const runs = slice.map(async (call) => {
        const result = await runOne(call, views[call.position]!, ctx);
        results[call.position] = result;
        views[call.position]!.status = isError(result) ? 'error' : 'ok';
        views[call.position]!.output = capText(result);
      });
      await (patched(CANCEL_WAITS_PATCH) ? allSettledOrThrow(runs) : Promise.all(runs));
    }
  }
  state.lastToolCalls = views;
  state.currentToolCalls = [];
  return calls.map((c, i) => ({ role: 'tool', tool_call_id: c.id, content: results[i]! }));
}
