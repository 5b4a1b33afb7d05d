// Sends a task's environment tool calls (terminal, process) to the worker that holds its environment, and falls
// back to any worker, which makes the environment anew, when that worker is gone. Workflow-safe.
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  patched,
  proxyActivities,
  TimeoutFailure,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { AgentActivities, RunToolInput, RunToolOutput } from '../common/activity-contract.js';
import type { ToolMeta } from '../common/types.js';
import { HOLDER_LOST } from '../common/task-queues.js';

/** Where the task's environment lives; part of the state carried through continue-as-new. */
export interface EnvironmentRoute {
  /** The task queue of the worker holding the environment, once one does. */
  queue?: string;
  /** The task has had an environment: one missing now was lost, and the result says so. */
  had?: boolean;
  /** Seconds a call waits for that worker to pick it up before the worker counts as gone. */
  pinSeconds: number;
  /** The eager try of a call for this holder reached another worker: later calls go to the holder's queue directly. */
  eagerMissed?: string;
}

/** Added in the terminal-backends change; histories recorded before it replay without routing. */
const ROUTING_PATCH = 'environment-routing';

function neverStarted(err: ActivityFailure): boolean {
  return err.cause instanceof TimeoutFailure && err.cause.timeoutType === 'SCHEDULE_TO_START';
}

/** Added with eager dispatch of calls for the holding worker; histories recorded before it replay as they ran. */
const EAGER_PATCH = 'environment-calls-eager';

/**
 * Where a call for the worker holding the task's environment is tried, in order. First the workflow's own queue:
 * the worker completing this workflow task takes the call at once (Temporal's eager dispatch; about 1 ms sooner
 * than a trip through matching), and it is the holder whenever that worker runs the run's workflow tasks, which is
 * always so with one worker. Any other worker answers `misrouted` without running anything (the `...OnHolder`
 * activities, src/activities/holder-only.ts), and the call goes to the holder's own queue as before; after a miss,
 * later calls for the same holder go there directly. Each try is a single attempt, never retried blindly.
 */
function holderTries(
  route: EnvironmentRoute,
  holder: string,
  options: ActivityOptions,
  rerunLost: boolean,
): HolderTry[] {
  const once = { scheduleToStartTimeout: `${route.pinSeconds} seconds`, retry: { maximumAttempts: 1 } };
  const pinned: HolderTry = { options: { ...options, ...once, taskQueue: holder } };
  if (route.eagerMissed === holder || !patched(EAGER_PATCH)) return [pinned];
  // A call that must not run twice keeps its retries on the eager try: a later attempt that reaches the holder takes
  // the earlier one over (a busy holder), and one that reaches another worker says the holder was lost (HOLDER_LOST).
  // The pinned try stays single: a dead holder's queue answers nobody, and its retry would only wait.
  const eager = rerunLost ? once : { ...once, retry: options.retry ?? once.retry };
  return [{ options: { ...options, ...eager }, holder }, pinned];
}

/**
 * A later attempt of the eager try reached a worker that does not hold the environment (HOLDER_LOST): the earlier one
 * may have run on the holder. Read like a holder's call lost after it started.
 */
function holderLost(err: ActivityFailure): boolean {
  return err.cause instanceof ApplicationFailure && err.cause.type === HOLDER_LOST;
}

interface HolderTry {
  options: ActivityOptions;
  /** The eager try, on the workflow's queue: the `...OnHolder` activity is told which worker holds it. */
  holder?: string;
}

/** A worker from before the `...OnHolder` activities took the eager try: it ran nothing. */
function notRegistered(err: ActivityFailure): boolean {
  return err.cause instanceof ApplicationFailure && err.cause.type === 'NotFoundError';
}

/**
 * Runs a call for the worker holding the task's environment (`call`, given the holder on the eager try), trying
 * the places `holderTries` gives. Returns undefined when that worker is gone (no worker picked the call up in time,
 * or the holder was lost during it and `rerunLost` allows another try elsewhere): the caller then sends it to the
 * shared queue. A lost call that may have run and must not run twice is thrown, for the caller to report.
 */
export async function onHolder<T>(
  route: EnvironmentRoute,
  options: ActivityOptions,
  call: (options: ActivityOptions, holder: string | undefined) => Promise<T | 'misrouted'>,
  rerunLost: boolean,
): Promise<T | undefined> {
  const holder = route.queue;
  if (!holder) return undefined;
  for (const attempt of holderTries(route, holder, options, rerunLost)) {
    const eager = attempt.holder !== undefined;
    try {
      const out = await call(attempt.options, attempt.holder);
      if (out !== 'misrouted') return out;
      route.eagerMissed = holder;
    } catch (err) {
      if (!(err instanceof ActivityFailure)) throw err;
      if (eager && notRegistered(err)) continue;
      const lost = holderLost(err);
      if (!(err.cause instanceof TimeoutFailure) && !lost) throw err;
      const started = lost || !neverStarted(err);
      // Not picked up on the workflow's queue in time: the holder's own queue may still answer.
      if (eager && !started) continue;
      // Lost after it started, on the workflow's queue as on the holder's own: read as the holder's loss. Another
      // worker answers misrouted at once (and gets the eager try only until the first miss), while the holder can die
      // at any moment of a call, before its first heartbeat too: dropping the route keeps takeover fast.
      route.queue = undefined;
      if (started && !rerunLost) throw err;
      return undefined;
    }
  }
  return undefined;
}

/**
 * Runs an environment tool call. For the holding worker (`onHolder`) it is tried once: a call no worker picked up in
 * time never started, so it goes to the shared queue, where another worker makes a new environment and says so in
 * the result. A call that started and then lost its worker is reported by the caller as interrupted (a
 * world-changing call) or tried again on the shared queue (a safe one).
 */
export async function runRouted(
  route: EnvironmentRoute,
  options: ActivityOptions,
  meta: ToolMeta | undefined,
  input: RunToolInput,
  gated = false,
): Promise<RunToolOutput> {
  const shared = proxyActivities<AgentActivities>(options);
  if (!patched(ROUTING_PATCH)) return shared.runTool(input);
  const held = await onHolder(
    route,
    options,
    async (opts, holder) => {
      const acts = proxyActivities<AgentActivities>(opts);
      const on = { ...input, environmentExpected: true };
      const out = holder
        ? await (gated ? acts.runGatedToolOnHolder : acts.runToolOnHolder)({ ...on, holder })
        : await (gated ? acts.runGatedTool : acts.runTool)(on);
      return out.status === 'misrouted' ? 'misrouted' : out;
    },
    meta?.sideEffects !== 'changes-world',
  );
  if (held) return held;
  const out = await (gated ? shared.runGatedTool : shared.runTool)({ ...input, environmentExpected: route.had });
  forgetLostWorker(route, out.lostWorker);
  if (out.workerQueue) {
    route.queue = out.workerQueue;
    route.had = true;
  }
  return out;
}

/**
 * A retried activity found that its earlier attempt's worker was lost: if that worker held the environment, the
 * next environment call goes straight to the shared queue instead of waiting `pinSeconds` on a dead worker's queue.
 */
export function forgetLostWorker(route: EnvironmentRoute, lost: string | undefined): void {
  if (lost && route.queue?.endsWith(`@${lost}`)) route.queue = undefined;
}

/** The run ended: the holding worker closes the task's environments now instead of at their idle timeout. */
export async function releaseEnvironment(route: EnvironmentRoute, taskId: string): Promise<void> {
  if (!route.queue || !patched(ROUTING_PATCH)) return;
  const acts = proxyActivities<AgentActivities>({
    taskQueue: route.queue,
    scheduleToStartTimeout: `${route.pinSeconds} seconds`,
    startToCloseTimeout: '2 minutes',
    retry: { maximumAttempts: 1 },
    summary: 'close environment',
  });
  await CancellationScope.nonCancellable(async () => {
    try {
      await acts.closeEnvironment({ taskId });
    } catch {
      // Best effort: a worker that is gone took its environments with it, and idle ones are reaped anyway.
    }
  });
  route.queue = undefined;
}
