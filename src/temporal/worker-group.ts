// Runs a tether worker's Temporal workers as one: the shared task queue (workflows and tool calls), the worker's own
// queue (tool calls of tasks whose environment this worker holds) and the model-call queue, each with slots of its
// own; and closes what serves them all (the heartbeat thread) once they stop. Worker-only.
import type { Worker } from '@temporalio/worker';

export class WorkerGroup {
  constructor(
    /** Every Temporal worker of this process; the first polls the shared task queue. */
    readonly workers: readonly Worker[],
    readonly ownQueue: string,
    /** Runs once every worker has stopped. */
    private readonly onStopped: () => void = () => undefined,
  ) {}

  /** Runs all until shut down (SIGINT/SIGTERM or shutdown()); one failing stops the others. */
  async run(): Promise<void> {
    const runs = this.workers.map((w) => w.run());
    try {
      await Promise.race(runs);
    } finally {
      this.shutdown();
      await Promise.allSettled(runs);
      this.onStopped();
    }
    await Promise.all(runs);
  }

  /**
   * Runs all while `fn` (or the promise) runs, then shuts them down. Resolves or rejects only once every worker has
   * stopped (their connection can then be closed): when one stops first (Ctrl-C reaches them all through the
   * runtime; one may fail), the others are shut down and waited for, not left polling on a closing connection.
   */
  async runUntil<R>(fnOrPromise: Promise<R> | (() => Promise<R>)): Promise<R> {
    const runs = this.workers.map((w) => w.run());
    void Promise.race(runs).then(
      () => this.shutdown(),
      () => this.shutdown(),
    );
    let outcome: { ok: true; value: R } | { ok: false; error: unknown } | undefined;
    void (async () => {
      try {
        outcome = { ok: true, value: await (typeof fnOrPromise === 'function' ? fnOrPromise() : fnOrPromise) };
      } catch (error) {
        outcome = { ok: false, error };
      } finally {
        this.shutdown();
      }
    })();
    try {
      const stopped = await Promise.allSettled(runs);
      const failed = stopped.find((s): s is PromiseRejectedResult => s.status === 'rejected');
      if (failed) throw failed.reason;
      if (!outcome) throw new Error('the worker stopped before the command finished');
      if (!outcome.ok) throw outcome.error;
      return outcome.value;
    } finally {
      this.onStopped();
    }
  }

  shutdown(): void {
    for (const w of this.workers) {
      if (w.getState() === 'RUNNING') w.shutdown();
    }
  }
}
