// Keeps an activity heartbeating while it waits, so a dead worker is noticed and cancellation arrives. Worker-only.
import { Context } from '@temporalio/activity';

const HEARTBEAT_MS = 2_000;

/** Runs `fn` with the activity's cancellation signal, heartbeating now and every 2 s until it settles. */
export async function withHeartbeat<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const ctx = Context.current();
  const beat = setInterval(() => ctx.heartbeat(), HEARTBEAT_MS);
  ctx.heartbeat();
  try {
    return await fn(ctx.cancellationSignal);
  } finally {
    clearInterval(beat);
  }
}
