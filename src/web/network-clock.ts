// A deadline that can be paused: a fetch's time limit covers the network, not the minutes a person takes to approve
// a host. Its signal aborts once the running time reaches the limit. Worker-only (timers).
export class NetworkClock {
  private readonly controller = new AbortController();
  private left: number;
  private since: number | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly limitMs: number) {
    this.left = limitMs;
    this.resume();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Stops the clock (nested pauses are not counted: one pause, one resume). */
  pause(): void {
    if (this.since === undefined) return;
    this.left -= Date.now() - this.since;
    this.since = undefined;
    clearTimeout(this.timer);
  }

  resume(): void {
    if (this.since !== undefined || this.controller.signal.aborted) return;
    this.since = Date.now();
    this.timer = setTimeout(
      () => this.controller.abort(new Error(`timed out after ${this.limitMs} ms`)),
      Math.max(0, this.left),
    );
  }

  /** The fetch is over: no timer stays behind. */
  stop(): void {
    this.pause();
  }
}
