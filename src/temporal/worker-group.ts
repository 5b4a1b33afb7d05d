// Runs a tether worker's two Temporal workers as one: the shared task queue (workflows and activities) and the
// worker's own queue, which receives the tool calls of tasks whose environment this worker holds. Worker-only.
import type { Worker } from '@temporalio/worker';

export class WorkerGroup {
  constructor(
    /** Polls the shared task queue. */
    readonly shared: Worker,
    /** Polls this worker's own queue (environment tools only). */
    readonly own: Worker,
    readonly ownQueue: string,
  ) {}

  /** Runs both until shut down (SIGINT/SIGTERM or shutdown()); one failing stops the other. */
  async run(): Promise<void> {
    const runs = [this.shared.run(), this.own.run()];
    try {
      await Promise.race(runs);
    } finally {
      this.shutdown();
      await Promise.allSettled(runs);
    }
    await Promise.all(runs);
  }

  /** Runs both while `fn` (or the promise) runs, then shuts both down. */
  async runUntil<R>(fnOrPromise: Promise<R> | (() => Promise<R>)): Promise<R> {
    return this.shared.runUntil(this.own.runUntil(fnOrPromise));
  }

  shutdown(): void {
    for (const w of [this.shared, this.own]) {
      if (w.getState() === 'RUNNING') w.shutdown();
    }
  }
}
