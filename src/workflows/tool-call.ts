// One tool call's path through the workflow, read in the order it happens: judge → ask → recheck → run. The call's
// own activity judges it (and runs it when nobody needs to decide); a verdict that needs someone comes back and the
// gate asks; an approved call goes back to the activity, which rechecks the files the verdict was reached on and runs
// it. The paths of runs recorded before are in tool-call-replay.ts. Workflow-safe.
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
import { argsDigest, type ApprovalMode, type CallAssessment } from '../common/approval-types.js';
import { HOLDER_LOST } from '../common/task-queues.js';
import type { AgentState, ToolCallView, ToolMeta } from '../common/types.js';
import { EXACT_SCOPE_PATCH, type ApprovalBook, type GateRequest } from './approvals.js';
import type { PlannedCall } from './batching.js';
import type { TurnCheckpoints } from './checkpoints.js';
import { forgetLostWorker, runRouted, type EnvironmentRoute } from './environment-route.js';
import type { LoopTools } from './loop-tools.js';
import { capLoopResult } from './payload-limits.js';
import { commandCwd, commandOf, recordedPath, runRecordedBefore } from './tool-call-replay.js';

/** What every call of a turn shares (src/workflows/tool-batch.ts). */
export interface BatchContext {
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

/** Added when cancellation began to wait for tool calls; histories recorded before it replay as they ran. */
export const CANCEL_WAITS_PATCH = 'cancel-waits-for-tools';
/**
 * Each verdict binds the files it was reached on: a call run after a decision (or let through by the policy) is
 * compared with them first, and sent back with its new verdict when they changed. This many times, then it is not
 * run: something keeps rewriting what it runs.
 */
const MAX_VERDICTS = 4;

/**
 * Retries only where running twice is harmless. A world-changing call's later attempts never run it blindly: on the
 * worker whose earlier attempt still runs, one takes that attempt over; it runs the call only when every earlier
 * attempt provably ran nothing (each reached its worker after the server had given it up); otherwise it reports the
 * call interrupted (src/liveness). Attempts past the second matter only on a worker too starved to start one within
 * the heartbeat timeout.
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
      : {
          initialInterval: '200 milliseconds',
          backoffCoefficient: 2,
          maximumInterval: '2 seconds',
          maximumAttempts: 5,
        },
    summary: `${call.emoji} ${call.name}: ${call.summary}`,
  };
}

/** What the model is told of a call whose activity failed (its worker lost, a retryable failure that gave up). */
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

type GateOutcome = Awaited<ReturnType<ApprovalBook['gate']>>;

/** One call: its activity options, its input, and the steps every path takes (run an activity, ask the gate). */
export class CallPath {
  readonly options: ActivityOptions;
  readonly input: RunToolInput;

  constructor(
    readonly call: PlannedCall,
    readonly view: ToolCallView,
    readonly ctx: BatchContext,
  ) {
    this.options = activityOptions(call.meta, view, ctx.heartbeatTimeoutSeconds);
    this.input = {
      name: call.name,
      args: call.args,
      callId: view.id,
      taskId: ctx.taskId,
      ...ctx.task,
      cwd: ctx.cwd,
      approved: false,
      ...(ctx.backend ? { backend: ctx.backend } : {}),
    };
  }

  /** The call's activity; `gated`: it judges the call first and runs it only when nobody needs to decide. */
  async activity(input: RunToolInput, gated = false): Promise<RunToolOutput> {
    const { call, ctx } = this;
    let out: RunToolOutput;
    if (call.meta?.environment) out = await runRouted(ctx.environment, this.options, call.meta, input, gated);
    else {
      const acts = proxyActivities<AgentActivities>(this.options);
      out = await (gated ? acts.runGatedTool : acts.runTool)(input);
      forgetLostWorker(ctx.environment, out.lostWorker);
    }
    // A call sent back for a decision ran nothing: its result comes later.
    if (!out.assessment) ctx.onToolResult?.(input.callId, out.result);
    return out;
  }

  /** What the gate is asked: `cwd` as judged by the activity (calls recorded before: read from the arguments here). */
  gateRequest(command: string, cwd?: string): GateRequest {
    const { call, view, ctx } = this;
    return {
      callId: view.id,
      tool: call.name,
      command,
      args: call.args,
      argsDigest: argsDigest(call.args),
      cwd: cwd ?? commandCwd(call.args, call.meta?.cwdArg, ctx.cwd),
      model: ctx.model,
      mode: ctx.approvalMode,
      timeoutSeconds: ctx.approvalTimeoutSeconds,
    };
  }

  /** ask: the gate decides (policy, session scope, smart approval, a person); the call shows as awaiting meanwhile. */
  async ask(req: GateRequest, judge?: () => Promise<GateRequest | undefined>): Promise<GateOutcome> {
    this.view.status = 'awaiting_approval';
    const gate = await gateOrExplain(this.ctx, req, judge);
    this.view.status = 'running';
    return gate;
  }
}

/** The gate, with its own failures (an approval activity giving up) turned into a result that says nothing ran. */
async function gateOrExplain(
  ctx: BatchContext,
  req: GateRequest,
  judge?: () => Promise<GateRequest | undefined>,
): Promise<GateOutcome> {
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

/**
 * A gated call, live: judge (its activity judges it, and runs it when nobody needs to decide) → ask (the gate) →
 * recheck and run (the activity reads the files the verdict was reached on again, and runs the call when they are
 * unchanged; changed, it comes back with its new verdict to be asked again, at most MAX_VERDICTS times).
 */
async function judgeAskRecheckRun(path: CallPath): Promise<RunToolOutput | string> {
  let out = await path.activity(path.input, true);
  for (let verdicts = 1; out.assessment; verdicts += 1) {
    const judged: CallAssessment = out.assessment;
    if (verdicts > MAX_VERDICTS)
      return JSON.stringify({
        error: `Not run: ${judged.changed?.join(', ') ?? 'what this call runs'} changed again between the check and the run, ${MAX_VERDICTS} times. Find out what keeps rewriting it, or run it another way.`,
      });
    const gate = await path.ask({ ...path.gateRequest(judged.command, judged.cwd), assessment: judged });
    if (!gate.run) return gate.result;
    // Runs recorded before the recheck ran on the verdict without a second look at its files.
    const bound = patched(EXACT_SCOPE_PATCH) ? { bound: judged.reads ?? {} } : {};
    out = await path.activity({ ...path.input, approved: gate.approved, ...bound });
  }
  return out;
}

/**
 * A plugin's pre_tool_call hook asked for a person (a call nobody else needed to decide): the same gate, with the
 * hook's reason as the finding; approved, the call runs with the approval.
 */
async function askForHook(path: CallPath, out: RunToolOutput): Promise<string> {
  const reason = out.reason ?? 'a plugin hook asked for approval';
  const { call } = path;
  const gate = await path.ask({
    ...path.gateRequest(commandOf(call.args, call.meta?.commandArg) ?? call.args),
    findings: [{ rule: `hook:${call.name}`, tier: 'dangerous', description: reason }],
  });
  if (!gate.run) return gate.result;
  return (await path.activity({ ...path.input, approved: true })).result;
}

/** One call, from the model's request to the result it is told. */
export async function runOne(call: PlannedCall, view: ToolCallView, ctx: BatchContext): Promise<string> {
  // First, as always: the activity options ask for a patch, whose marker must fall where it was recorded.
  // A call without metadata (unknown or filtered-out tool) still goes to the worker: dispatch gives the precise error.
  const path = new CallPath(call, view, ctx);
  try {
    // Agent-loop tools (todo, memory, delegate_task, ...) run in the workflow; their activity failures become results too.
    // Capped like tool results: sub-agents' answers together could otherwise pass Temporal's payload limit.
    if (call.meta?.agentLoop) return capLoopResult(await ctx.loop.run(call.name, call.args, view));
    await ctx.checkpoints?.before(call.meta, call.name, view);
    let approved = false;
    let out: RunToolOutput | string;
    const recorded = recordedPath(call.meta);
    if (recorded) ({ out, approved } = await runRecordedBefore(path, recorded));
    else if (call.meta?.gated) out = await judgeAskRecheckRun(path);
    else out = await path.activity(path.input);
    if (typeof out === 'string') return out;
    if (out.status === 'approval_required' && !approved) return await askForHook(path, out);
    return out.result;
  } catch (err) {
    if (isCancellation(err)) throw err;
    if (err instanceof ActivityFailure) return failureResult(call.name, call.meta, err);
    throw err;
  }
}
