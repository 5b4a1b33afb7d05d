// Keeps an activity heartbeating while it waits, so a dead worker is noticed and cancellation arrives. Worker-only.
import { Context } from '@temporalio/activity';
import { WORKER_ID } from '../environments/current.js';
import { liveCall } from '../liveness/liveness.js';

/** With the workers' 1 s heartbeat throttle, a cancellation reaches a running activity within about a second. */
const HEARTBEAT_MS = 1_000;
const FIRST_HEARTBEAT_MS = 50;

/**
 * Runs `fn` with the activity's cancellation signal, heartbeating after 50 ms and every second until it settles. `details`
 * gives what each heartbeat carries (Temporal keeps the last one for the next attempt, even on another worker).
 */
export async function withHeartbeat<T>(fn: (signal: AbortSignal) => Promise<T>, details?: () => unknown): Promise<T> {
  const ctx = Context.current();
  // Registered by the liveness interceptor (src/liveness/liveness.ts): its thread speaks for the call while this
  // event loop is too busy to, and its signal ignores a give-up by the server that a later attempt takes over.
  const call = liveCall(ctx.info.base64TaskToken);
  // Every heartbeat names this worker: an attempt after a lost one can tell the workflow which worker died.
  const payload = (): Record<string, unknown> => {
    const d = details?.();
    return { ...(d && typeof d === 'object' ? d : {}), worker: WORKER_ID };
  };
  const heartbeat = (): void => {
    const p = payload();
    ctx.heartbeat(p);
    call?.beat(p);
  };
  const beat = setInterval(heartbeat, HEARTBEAT_MS);
  // The first beat waits a little: a call that ends sooner (most commands take a few ms) costs the server no
  // heartbeat while it runs, about 1 ms of a trivial call here. A worker lost before it only goes unnamed, so the
  // next environment call waits out the pin on its queue; the heartbeat timeout still runs from the start.
  const first = setTimeout(heartbeat, FIRST_HEARTBEAT_MS);
  try {
    return await fn(call?.signal ?? ctx.cancellationSignal);
  } finally {
    clearTimeout(first);
    clearInterval(beat);
  }
}

/**
 * On a retry after a lost attempt: the id of the worker that ran that attempt (from its last heartbeat), when it was
 * another worker. The workflow stops routing the task's environment calls to that worker's queue.
 */
export function lostWorker(): string | undefined {
  const info = Context.current().info;
  if (info.attempt <= 1) return undefined;
  const worker = (info.heartbeatDetails as { worker?: unknown } | undefined)?.worker;
  return typeof worker === 'string' && worker !== WORKER_ID ? worker : undefined;
}
