// Runs eval:contained's commands several at a time, each in a world slot of its own, never two at once whose named
// paths overlap (one inside the other: `~` and `~/.ssh/x`, `/` and anything), and pauses between commands when a
// shared part of the world must be put back. Pure scheduling (no I/O of its own).

export interface Job<T> {
  /** Paths the job changes or compares outside its slot: no other job holding one inside another runs meanwhile. */
  holds: string[];
  /** Needs the one slot whose task directory is the corpus's own directory. */
  ownDirectory?: boolean;
  item: T;
}

export interface Started {
  /** The slot index (0..concurrency-1), or -1 for the own-directory slot. */
  slot: number;
  start: number;
}

const overlaps = (a: string, b: string): boolean =>
  a === b || a === '/' || b === '/' || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);

/** How far past the first waiting job the scheduler looks for one that can start. */
const LOOKAHEAD = 64;

/**
 * Runs every job through `run` with at most `concurrency` at a time. `between` is awaited whenever no job runs and
 * `needsQuiet()` says a shared part must be put back first (no new job starts meanwhile).
 */
export async function runScheduled<T, R>(
  jobs: readonly Job<T>[],
  concurrency: number,
  run: (job: Job<T>, slot: number) => Promise<R>,
  quiet: { needed: () => boolean; restore: () => Promise<void> },
  slotHolds: (slot: number) => string[],
): Promise<R[]> {
  const results: R[] = new Array<R>(jobs.length);
  const waiting = jobs.map((_, i) => i);
  const freeSlots = Array.from({ length: concurrency }, (_, i) => i);
  let ownFree = true;
  const running = new Map<number, { holds: string[]; slot: number; done: Promise<void> }>();
  let failure: unknown;
  while ((waiting.length > 0 && failure === undefined) || running.size > 0) {
    if (quiet.needed()) {
      if (running.size > 0) {
        await Promise.race([...running.values()].map((r) => r.done));
        continue;
      }
      await quiet.restore();
    }
    let started = false;
    for (let w = 0; w < Math.min(waiting.length, LOOKAHEAD) && running.size < concurrency; w += 1) {
      const i = waiting[w]!;
      const job = jobs[i]!;
      if (job.ownDirectory ? !ownFree : freeSlots.length === 0) continue;
      const slot = job.ownDirectory ? -1 : freeSlots[0]!;
      const holds = [...job.holds, ...slotHolds(slot)];
      const busy = [...running.values()].some((r) => r.holds.some((h) => holds.some((m) => overlaps(h, m))));
      if (busy) continue;
      waiting.splice(w, 1);
      if (job.ownDirectory) ownFree = false;
      else freeSlots.shift();
      const done = run(job, slot)
        .then(
          (r) => {
            results[i] = r;
          },
          (err: unknown) => {
            failure ??= err;
          },
        )
        .finally(() => {
          running.delete(i);
          if (slot === -1) ownFree = true;
          else freeSlots.push(slot);
        });
      running.set(i, { holds, slot, done });
      started = true;
      break;
    }
    if (!started) {
      if (running.size === 0) throw new Error('eval:contained: no job can start (a scheduling bug)');
      await Promise.race([...running.values()].map((r) => r.done));
    }
  }
  if (failure !== undefined) throw failure;
  return results;
}
