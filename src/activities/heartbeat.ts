// Keeps an activity heartbeating while it waits, so a dead worker is noticed and cancellation arrives. Worker-only.
import { Context } from '@temporalio/activity';

/** With the workers' 1 s heartbeat throttle, a cancellation reaches a running activity within about a second. */
const HEARTBEAT_MS = 1_000;

/**
 * Runs `fn` with the activity's cancellation signal, heartbeating now and every second until it settles. `details`
 * gives what each heartbeat carries (Temporal keeps the last one for the next attempt, even on another worker).
 */
export async function withHeartbeat<T>(fn: (signal: AbortSignal) => Promise<T>, details?: () => unknown): Promise<T> {
  const ctx = Context.current();
  const beat = setInterval(() => ctx.heartbeat(details?.()), HEARTBEAT_MS);
  ctx.heartbeat(details?.());
  try {
    return await fn(ctx.cancellationSignal);
  } finally {
    clearInterval(beat);
  }
}
