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

  /** Runs all while `fn` (or the promise) runs, then shuts them down. */
  async runUntil<R>(fnOrPromise: Promise<R> | (() => Promise<R>)): Promise<R> {
    const nested = this.workers.reduceRight<() => Promise<R>>(
      (inner, w) => () => w.runUntil(inner()),
      () => (typeof fnOrPromise === 'function' ? fnOrPromise() : fnOrPromise),
    );
    try {
      return await nested();
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
