// One `sh -c SCRIPT` run by `docker exec` over a hijacked connection: demultiplexed output, streamed stdin, PTY. Worker-only.
import type { Duplex } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type Docker from 'dockerode';
import { dockerError, isConnectionError } from './errors.js';
import { EnvironmentError, type PtySize, type SpawnOptions, type TransportProcess } from '../../types.js';

/** What a process needs from its transport. */
export interface ExecTarget {
  container: Docker.Container;
  name: string;
  socket: string;
  /** 'removed' or 'exited' when the container can no longer run commands; undefined while it runs. */
  goneReason(): Promise<'removed' | 'exited' | undefined>;
}

/** How long to wait for the daemon to record the exit code after the stream closed. */
const EXIT_CODE_WAIT_MS = 3_000;
/** After a kill or a lost stream, how long the container gets to show that it died. */
const GONE_WAIT_MS = 500;
const GONE_POLL_MS = 25;

/**
 * Splits Docker's multiplexed stream (frames of an 8-byte header: stream type, three zero bytes, big-endian
 * length) into payloads. stdout and stderr both go to `emit`, in the order the daemon framed them.
 */
export function createDemuxer(emit: (chunk: Buffer) => void): (data: Buffer) => void {
  let pending: Buffer = Buffer.alloc(0);
  return (data) => {
    pending = pending.length === 0 ? data : Buffer.concat([pending, data]);
    while (pending.length >= 8) {
      const size = pending.readUInt32BE(4);
      if (pending.length < 8 + size) break;
      if (size > 0) emit(pending.subarray(8, 8 + size));
      pending = pending.subarray(8 + size);
    }
  };
}

/** The exec's argv: `sh -c script` with stderr on stdout; with a PTY, stty sets its size before the script starts. */
function command(script: string, pty: PtySize | undefined): string[] {
  // The daemon copies stdout and stderr in separate goroutines, which can reorder them; one pipe keeps the order.
  if (!pty) return ['sh', '-c', 'exec sh -c "$1" 2>&1', 'sh', script];
  // Only while the size is unset (0 0, or an error from busybox): a resize() that reached the daemon first stays.
  const prelude =
    'case "$(stty size 2>/dev/null)" in ""|"0 0") stty cols "$1" rows "$2" 2>/dev/null;; esac; exec sh -c "$3"';
  return ['sh', '-c', prelude, 'sh', String(pty.cols), String(pty.rows), script];
}

export class DockerProcess implements TransportProcess {
  readonly exited: Promise<number | null>;
  private readonly listeners: ((chunk: Buffer) => void)[] = [];
  private readonly queued: Buffer[] = [];
  private stdinEnded = false;
  private destroyed = false;
  private socket: Duplex | undefined;
  private exec: Docker.Exec | undefined;
  /** The latest size asked for; sent once the exec started (a resize may come before that). */
  private size: PtySize | undefined;

  constructor(
    private readonly target: ExecTarget,
    script: string,
    private readonly opts: SpawnOptions & { stdin?: string },
  ) {
    this.size = opts.pty;
    if (opts.stdin !== undefined) {
      this.write(opts.stdin);
      this.end();
    }
    this.exited = this.run(script);
    // A caller that drops the process (a kill helper) must not crash the worker with an unhandled rejection.
    this.exited.catch(() => undefined);
  }

  onData(listener: (chunk: Buffer) => void): void {
    this.listeners.push(listener);
  }

  write(data: string | Buffer): void {
    if (this.stdinEnded || this.destroyed) return;
    const chunk = typeof data === 'string' ? Buffer.from(data) : data;
    if (this.socket) this.socket.write(chunk);
    else this.queued.push(chunk);
  }

  end(): void {
    if (this.stdinEnded) return;
    this.stdinEnded = true;
    // Half-close: the daemon closes the process's stdin and keeps sending output.
    this.socket?.end();
  }

  resize(size: PtySize): void {
    if (!this.opts.pty || this.destroyed) return;
    this.size = size;
    if (!this.socket || !this.exec) return;
    // A resize racing the end of the process fails harmlessly.
    this.exec.resize({ h: size.rows, w: size.cols }).catch(() => undefined);
  }

  destroy(): void {
    this.destroyed = true;
    this.socket?.destroy();
  }

  private emit(chunk: Buffer): void {
    for (const listener of this.listeners) listener(chunk);
  }

  private async run(script: string): Promise<number | null> {
    const { container, name, socket } = this.target;
    const tty = this.opts.pty !== undefined;
    try {
      this.exec = await container.exec({
        Cmd: command(script, this.opts.pty),
        AttachStdin: true,
        AttachStdout: true,
        AttachStderr: true,
        Tty: tty,
        ...(tty ? { Env: ['TERM=xterm-256color'] } : {}),
      });
      if (this.destroyed) return null;
      this.socket = (await this.exec.start({ hijack: true, stdin: true, Tty: tty })) as Duplex;
    } catch (error) {
      throw await this.failure(error, `exec in container ${name}`);
    }
    const sock = this.socket;
    if (this.destroyed) sock.destroy();
    const feed = tty ? (chunk: Buffer) => this.emit(chunk) : createDemuxer((chunk) => this.emit(chunk));
    sock.on('data', feed);
    for (const chunk of this.queued.splice(0)) sock.write(chunk);
    if (this.stdinEnded) sock.end();
    if (this.size) this.resize(this.size);

    const streamError = await new Promise<Error | undefined>((resolve) => {
      let failed: Error | undefined;
      sock.on('error', (error) => (failed = error));
      sock.on('close', () => resolve(failed));
    });
    if (this.destroyed) return null;
    return this.exitCode(streamError, socket);
  }

  private async exitCode(streamError: Error | undefined, socket: string): Promise<number | null> {
    const exec = this.exec;
    let code: number | null = null;
    try {
      for (let waited = 0; exec && waited <= EXIT_CODE_WAIT_MS; waited += 50) {
        const info = await exec.inspect();
        if (!info.Running) {
          code = typeof info.ExitCode === 'number' ? info.ExitCode : null;
          break;
        }
        await sleep(50);
      }
    } catch (error) {
      if (isConnectionError(error)) throw dockerError(error, socket, 'inspect exec');
      // A 404: the exec went with its container; goneReason below says so.
    }
    // A clean exit needs no second look; a kill (137) or a lost stream may mean the container went away.
    if (code !== null && code < 128 && !streamError) return code;
    // A killed container's execs end (SIGKILL: 137) a moment before the daemon marks it exited, so look again
    // for a little while; a script that was killed by the layer above costs only this wait.
    for (let waited = 0; ; waited += GONE_POLL_MS) {
      const gone = await this.target.goneReason().catch((error: unknown) => {
        throw dockerError(error, socket, `inspect container ${this.target.name}`);
      });
      if (gone) throw this.goneError(gone);
      if (waited >= GONE_WAIT_MS) return code;
      await sleep(GONE_POLL_MS);
    }
  }

  private goneError(reason: 'removed' | 'exited'): EnvironmentError {
    return new EnvironmentError('Environment.Gone', 'docker', `container ${this.target.name} is gone (${reason})`);
  }

  private async failure(error: unknown, doing: string): Promise<EnvironmentError> {
    if (isConnectionError(error)) return dockerError(error, this.target.socket, doing);
    const gone = await this.target.goneReason().catch(() => undefined);
    if (gone) return this.goneError(gone);
    return dockerError(error, this.target.socket, doing);
  }
}
