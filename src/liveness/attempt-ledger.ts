// What this worker knows of each activity's attempts: the one running its function, the one that finished, the ones
// that never ran. A retry that reaches the worker whose earlier attempt is still running (alive, but too slow to
// heartbeat in time) takes that attempt over instead of running the call again or calling it lost. Worker-only.

/** How an attempt ended: its value or its error, as the activity's caller would have seen it. */
export type Settled = { ok: true; value: unknown } | { ok: false; error: unknown };

/** An attempt that runs the call's function here. */
export interface Running {
  attempt: number;
  outcome: Promise<Settled>;
  /** A later attempt waits for this one's outcome: it must not be stopped because the server gave it up. */
  adopted: boolean;
  /** Called when a later attempt takes it over (it stops any countdown to its abort). */
  onAdopted?: () => void;
  /** Stops its work: the attempt that took it over was cancelled. */
  stop?: (why: string) => void;
}

interface CallHistory {
  /** The highest attempt number that started here: an earlier one that starts later must not run. */
  latest: number;
  running?: Running;
  done?: { attempt: number; settled: Settled };
  /** Last change: what pruning goes by. */
  touched: number;
  /** Attempts that reached this worker after a later one, or after the server gave them up: they ran nothing. */
  refused: Set<number>;
  /** Later attempts waiting to learn what became of an earlier one. */
  waiters: (() => void)[];
}

/** What a starting attempt is to do. */
export type Start =
  /** Run the call: nothing is known of earlier attempts here (`earlierNeverRan`: all of them provably ran nothing). */
  | { kind: 'run'; earlierNeverRan: boolean }
  /** A later attempt exists: this one must run nothing. */
  | { kind: 'refuse' }
  /** An earlier attempt here is running or finished: its outcome is this attempt's (`stop` stops a running one). */
  | { kind: 'adopt'; outcome: Promise<Settled>; stop?: (why: string) => void };

/** What is known of a call is kept this long, for a retry that arrives after its earlier attempt ended. */
const KEEP_MS = 5 * 60_000;
const KEEP_MAX = 1_000;

/** A value, or a failure marked not to be retried (an ApplicationFailure's `nonRetryable`). */
function final(s: Settled): boolean {
  return s.ok || (s.error as { nonRetryable?: unknown } | null)?.nonRetryable === true;
}

export class AttemptLedger {
  private readonly calls = new Map<string, CallHistory>();

  constructor(private readonly now: () => number = Date.now) {}

  private history(key: string): CallHistory {
    let h = this.calls.get(key);
    if (!h) {
      h = { latest: 0, refused: new Set(), waiters: [], touched: this.now() };
      this.calls.set(key, h);
    }
    h.touched = this.now();
    return h;
  }

  private wake(h: CallHistory): void {
    for (const w of h.waiters.splice(0)) w();
  }

  /**
   * Attempt `attempt` of call `key` starts. `waitMs` (for an attempt after one that left no trace: no heartbeat
   * reached the server) is how long to wait for that earlier attempt to show up here, still queued behind this
   * worker's busy event loop; it is refused if it does.
   */
  async start(key: string, attempt: number, waitMs = 0): Promise<Start> {
    const h = this.history(key);
    if (h.latest > attempt) return this.refuse(key, attempt);
    h.latest = attempt;
    if (attempt > 1 && waitMs > 0 && !h.running && !h.done && h.refused.size === 0)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, waitMs);
        h.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    if (h.latest > attempt) return this.refuse(key, attempt);
    const running = h.running;
    if (running && running.attempt < attempt) {
      running.adopted = true;
      running.onAdopted?.();
      return { kind: 'adopt', outcome: running.outcome, ...(running.stop ? { stop: running.stop } : {}) };
    }
    // A finished earlier attempt's outcome is this one's when it was final: its value (its completion came too late:
    // the call is not paid for twice) or a failure that is not to be retried. A failure worth a retry is not: the
    // retry exists because of it, and runs the call again (adopting it would fail every attempt without a call).
    if (h.done && h.done.attempt < attempt && final(h.done.settled))
      return { kind: 'adopt', outcome: Promise.resolve(h.done.settled) };
    let earlierNeverRan = attempt > 1;
    for (let a = 1; a < attempt; a += 1) if (!h.refused.has(a)) earlierNeverRan = false;
    return { kind: 'run', earlierNeverRan };
  }

  /** This attempt runs nothing (a later one exists, or the server gave it up before it began). */
  refuse(key: string, attempt: number): Start {
    const h = this.history(key);
    h.refused.add(attempt);
    this.wake(h);
    return { kind: 'refuse' };
  }

  /** Whether a later attempt has started here since (checked again after anything this attempt awaited). */
  superseded(key: string, attempt: number): boolean {
    return (this.calls.get(key)?.latest ?? 0) > attempt;
  }

  /** The attempt runs the call's function: a later attempt that arrives meanwhile takes over its outcome. */
  running(key: string, run: Running): void {
    const h = this.history(key);
    h.running = run;
    this.wake(h);
    void run.outcome.then((settled) => {
      if (h.running === run) h.running = undefined;
      h.done = { attempt: run.attempt, settled };
      h.touched = this.now();
      this.prune();
    });
  }

  /** Oldest first (insertion order): calls past the keeping time, and any beyond the count, that nothing waits on. */
  private prune(): void {
    const cutoff = this.now() - KEEP_MS;
    for (const [key, h] of this.calls) {
      if (this.calls.size <= KEEP_MAX && h.touched >= cutoff) break;
      if (h.running || h.waiters.length > 0) continue;
      this.calls.delete(key);
    }
  }

  /** Calls this worker remembers (for tests and the worker's own accounting). */
  get size(): number {
    return this.calls.size;
  }
}
