// A task's long-lived shell on any transport that streams standard input: started once, fed one command at a
// time, each answered by a sentinel with its exit code and working directory. Worker-only.
import { randomBytes } from 'node:crypto';
import { bootScript, driverScript, frame, type FrameOptions } from './shell-session-script.js';
import { EnvironmentError, type Transport, type TransportProcess } from './types.js';

/** How one command in the shell ended. */
export type SessionOutcome =
  | { kind: 'done'; exitCode: number; cwd: string }
  /** The shell itself ended (killed, its environment's init gone) before the command's sentinel. */
  | { kind: 'shell-died'; exitCode: number | null };

interface Pending {
  id: string;
  onData: (chunk: Buffer) => void;
  resolve: (o: SessionOutcome) => void;
  reject: (err: Error) => void;
}

export interface ShellSessionOptions {
  stateDir: string;
  workdir: string;
  /** Names the shell's files and its transport process (a tag later helpers can join). */
  tag: string;
  env?: Record<string, string>;
  guardPid?: number;
}

export class ShellSession {
  private readonly nonce = randomBytes(12).toString('hex');
  private readonly marker: Buffer;
  private readonly proc: TransportProcess;
  private buf: Buffer = Buffer.alloc(0);
  private pending: Pending | undefined;
  private readyWait: { resolve: () => void; reject: (e: Error) => void } | undefined;
  /** Settles when the shell printed its first sentinel; rejects when it ended before. */
  readonly ready: Promise<void>;
  /** Set once the shell process ended (or was dropped): a new session takes its place. */
  ended = false;
  /** Reserved by a command (from its frame until its sentinel): another command takes the per-command path. */
  busy = false;

  constructor(
    transport: Transport,
    readonly opts: ShellSessionOptions,
  ) {
    this.marker = Buffer.from(`\0${this.nonce}:`);
    this.ready = new Promise<void>((resolve, reject) => (this.readyWait = { resolve, reject }));
    this.ready.catch(() => undefined);
    const support = transport.persistentShell ?? {};
    this.proc = transport.spawn(bootScript(opts.stateDir, opts.env, this.nonce), { tag: opts.tag, taskShell: true });
    this.proc.onData((c) => this.feed(c));
    this.proc.exited.then(
      (code) => this.finish(undefined, code),
      (err: unknown) => this.finish(err instanceof Error ? err : new Error(String(err)), null),
    );
    this.proc.write(
      driverScript({
        stateDir: opts.stateDir,
        workdir: opts.workdir,
        tag: opts.tag,
        nonce: this.nonce,
        guardPid: opts.guardPid,
        reapsLeftovers: support.ownPidNamespace === true,
        markVariable: support.markVariable,
      }),
    );
  }

  /** Runs one command; its output (stdout and stderr on one stream, in order) goes to `onData` as it arrives. */
  run(f: FrameOptions, onData: (chunk: Buffer) => void): Promise<SessionOutcome> {
    if (this.ended) return Promise.resolve({ kind: 'shell-died', exitCode: null });
    if (f.command.includes('\0') || f.stdin?.includes('\0'))
      return Promise.reject(new Error('the command or its stdin contains a NUL byte, which a shell cannot take'));
    return new Promise<SessionOutcome>((resolve, reject) => {
      this.pending = { id: f.id, onData, resolve, reject };
      this.proc.write(frame(f));
    });
  }

  /** Ends the shell's channel; a command still in it reports the shell gone. Its processes are the caller's to kill. */
  drop(): void {
    this.proc.end();
    this.proc.destroy();
    this.finish(undefined, null);
  }

  private feed(chunk: Buffer): void {
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    for (;;) {
      const at = this.buf.indexOf(this.marker);
      if (at < 0) {
        // Keep what could be the start of a marker split across chunks.
        const keep = Math.min(this.buf.length, this.marker.length - 1);
        this.emit(this.buf.subarray(0, this.buf.length - keep));
        this.buf = this.buf.subarray(this.buf.length - keep);
        return;
      }
      const end = this.buf.indexOf(0, at + this.marker.length);
      if (end < 0) {
        this.emit(this.buf.subarray(0, at));
        this.buf = this.buf.subarray(at);
        return;
      }
      this.emit(this.buf.subarray(0, at));
      this.sentinel(this.buf.subarray(at + this.marker.length, end).toString('utf8'));
      this.buf = this.buf.subarray(end + 1);
    }
  }

  /** Output between commands (a background child writing after its command ended) belongs to none: dropped. */
  private emit(data: Buffer): void {
    if (data.length > 0) this.pending?.onData(Buffer.from(data));
  }

  private sentinel(body: string): void {
    if (body === 'ready') {
      this.readyWait?.resolve();
      return;
    }
    if (body.startsWith('died:')) {
      this.finish(undefined, Number(body.slice('died:'.length)));
      this.proc.destroy();
      return;
    }
    const [id, code, ...cwd] = body.split(':');
    const p = this.pending;
    if (!p || p.id !== id) return;
    this.pending = undefined;
    p.resolve({ kind: 'done', exitCode: Number(code), cwd: cwd.join(':') });
  }

  private finish(err: Error | undefined, code: number | null): void {
    if (this.ended) return;
    this.ended = true;
    const p = this.pending;
    this.pending = undefined;
    if (this.buf.length > 0 && p && !this.buf.subarray(0, this.marker.length).equals(this.marker)) p.onData(this.buf);
    this.buf = Buffer.alloc(0);
    const gone =
      err ?? new EnvironmentError('Environment.Unreachable', 'shell', `the task's shell ended (exit status ${code})`);
    this.readyWait?.reject(gone);
    if (!p) return;
    // The environment failing is the transport's error (retryable, recreated); the shell alone dying is a result.
    if (err) p.reject(err);
    else p.resolve({ kind: 'shell-died', exitCode: code });
  }
}
