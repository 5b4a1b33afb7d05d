// A TransportProcess for cloud sandboxes whose commands take their standard input whole (Daytona, Vercel Sandbox). Worker-only.
import { EnvironmentError, type TransportProcess } from './types.js';

/**
 * The handle a spawn returns at once, before any API call: the backend's runner feeds output in with `emit` and
 * settles it with `finish` or `fail`. Output that arrives before the first listener is kept for it.
 */
export class RemoteProcess implements TransportProcess {
  readonly exited: Promise<number | null>;
  private readonly listeners: ((chunk: Buffer) => void)[] = [];
  private pending: Buffer[] = [];
  private settled = false;
  private resolveExit!: (code: number | null) => void;
  private rejectExit!: (error: Error) => void;

  constructor(private readonly backend: string) {
    this.exited = new Promise<number | null>((resolve, reject) => {
      this.resolveExit = resolve;
      this.rejectExit = reject;
    });
  }

  /** False once the process was settled or destroyed: the runner may stop early. */
  get open(): boolean {
    return !this.settled;
  }

  onData(listener: (chunk: Buffer) => void): void {
    this.listeners.push(listener);
    const queued = this.pending;
    this.pending = [];
    for (const chunk of queued) listener(chunk);
  }

  emit(chunk: Buffer): void {
    if (this.settled || chunk.length === 0) return;
    if (this.listeners.length === 0) this.pending.push(chunk);
    else for (const listener of this.listeners) listener(chunk);
  }

  write(): void {
    throw new EnvironmentError(
      'Environment.Unsupported',
      this.backend,
      'standard input cannot be streamed to this backend; pass it whole as `stdin` at spawn',
    );
  }

  /** Nothing to end: without `stdin` the command was started with /dev/null as its input. */
  end(): void {}

  finish(code: number | null): void {
    if (this.settled) return;
    this.settled = true;
    this.resolveExit(code);
  }

  fail(error: Error): void {
    if (this.settled) return;
    this.settled = true;
    this.rejectExit(error);
  }

  /** Stops delivering output; the command itself goes on in the sandbox until the layer above kills it. */
  destroy(): void {
    this.finish(null);
  }
}
