// The SSH backend: runs `sh -c SCRIPT` on a remote host over a shared, reconnecting ssh2 connection. Worker-only.
import type { ClientChannel } from 'ssh2';
import type { BackendDefinition } from '../../backend-types.js';
import type { Logger } from '../../../logging/logger.js';
import { signalExitCode, sshCommand, StartMarkerFilter } from './command.js';
import { shQuote } from '../../shell-scripts.js';
import { releaseSshConnection, retainSshConnection, type SshConnection } from './pool.js';
import { sshSettingsSchema, sshTarget, sshUnavailable, targetName, type SshSettings } from './settings.js';
import type { SshLink } from './connect.js';
import {
  EnvironmentError,
  type PtySize,
  type SpawnOptions,
  type Transport,
  type TransportProcess,
} from '../../types.js';

class SshProcess implements TransportProcess {
  readonly exited: Promise<number | null>;
  private readonly listeners: ((chunk: Buffer) => void)[] = [];
  private early: Buffer[] = [];
  private channel: ClientChannel | undefined;
  private queued: (string | Buffer)[] = [];
  private endQueued = false;
  /** A resize asked for before the channel opened. */
  private pendingSize: PtySize | undefined;
  private destroyed = false;
  private settle: ((code: number | null) => void) | undefined;

  constructor(
    open: Promise<{ channel: ClientChannel; link: SshLink }>,
    stdin: string | undefined,
    private readonly pty: boolean,
  ) {
    if (stdin !== undefined) {
      this.queued.push(stdin);
      this.endQueued = true;
    }
    this.exited = new Promise<number | null>((resolve, reject) => {
      this.settle = resolve;
      open.then(({ channel, link }) => this.wire(channel, link, resolve, reject), reject);
    });
    // The caller awaits `exited`; this only keeps a process nobody waits for from crashing the worker.
    this.exited.catch(() => undefined);
  }

  private wire(
    channel: ClientChannel,
    link: SshLink,
    resolve: (code: number | null) => void,
    reject: (err: Error) => void,
  ): void {
    if (this.destroyed) {
      channel.close();
      return;
    }
    this.channel = channel;
    // A write after the far side closed (the process exited, the connection dropped) raises an 'error' event;
    // the outcome reaches the caller through `exited`, and an unheard 'error' would crash the worker.
    channel.on('error', () => undefined);
    channel.stderr.on('error', () => undefined);
    let code: number | null | undefined;
    channel.on('exit', (status: number | null, signal?: string) => {
      code = status ?? (signal !== undefined ? signalExitCode(signal) : null);
    });
    // What the login shell's startup files print before the command is dropped (command.ts); a PTY has one stream.
    const out = new StartMarkerFilter();
    const err = this.pty ? undefined : new StartMarkerFilter();
    const deliver = (chunk: Buffer) => {
      if (chunk.length > 0) this.emit(chunk);
    };
    channel.on('data', (chunk: Buffer) => deliver(out.push(chunk)));
    channel.stderr.on('data', (chunk: Buffer) => deliver(err ? err.push(chunk) : chunk));
    const stderrDone = new Promise<void>((r) =>
      channel.stderr.readableEnded ? r() : channel.stderr.once('end', r).once('close', r),
    );
    channel.once('close', () => {
      void stderrDone.then(() => {
        deliver(out.end());
        if (err) deliver(err.end());
        if (code !== undefined) resolve(code);
        else if (link.lost) reject(link.lost);
        else resolve(null);
      });
    });
    if (this.pendingSize) channel.setWindow(this.pendingSize.rows, this.pendingSize.cols, 0, 0);
    for (const data of this.queued) channel.write(data);
    this.queued = [];
    if (this.endQueued) channel.end();
  }

  private emit(chunk: Buffer): void {
    if (this.destroyed) return;
    if (this.listeners.length === 0) this.early.push(chunk);
    for (const l of this.listeners) l(chunk);
  }

  onData(listener: (chunk: Buffer) => void): void {
    this.listeners.push(listener);
    const early = this.early;
    this.early = [];
    for (const chunk of early) listener(chunk);
  }

  write(data: string | Buffer): void {
    if (this.endQueued) return;
    if (this.channel) this.channel.write(data);
    else this.queued.push(data);
  }

  end(): void {
    if (this.endQueued) return;
    this.endQueued = true;
    this.channel?.end();
  }

  resize(size: PtySize): void {
    if (this.channel) this.channel.setWindow(size.rows, size.cols, 0, 0);
    else this.pendingSize = size;
  }

  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.channel?.close();
    // Without a server reply (the connection may be gone) the channel never closes; the caller must not hang.
    this.settle?.(null);
  }
}

export class SshTransport implements Transport {
  readonly backend = 'ssh';
  readonly capabilities = { streamsStdin: true, pty: true };
  /** The task's shell is one exec channel on the shared connection (no channel per command). */
  readonly persistentShell = {};
  workdir = '';
  private conn: SshConnection | undefined;
  private closed = false;
  private readonly target;

  constructor(
    private readonly settings: SshSettings,
    private readonly log?: Logger,
  ) {
    this.target = sshTarget(settings);
  }

  /** The shared connection this transport holds (tests look at its connect count). */
  get connection(): SshConnection | undefined {
    return this.conn;
  }

  async start(): Promise<void> {
    if (!this.target.host) throw new EnvironmentError('Environment.Config', 'ssh', 'terminal.ssh.host is not set');
    if (this.closed)
      throw new EnvironmentError('Environment.Gone', 'ssh', `the transport to ${targetName(this.target)} was closed`);
    this.conn ??= retainSshConnection(this.target);
    await this.conn.acquire();
    const cwd = this.settings.cwd;
    const { code, output } = await this.run(cwd === undefined ? 'pwd' : `cd ${shQuote(cwd)} && pwd`);
    const dir = output.trim().split('\n').pop() ?? '';
    if (code !== 0 || !dir.startsWith('/')) {
      throw new EnvironmentError(
        'Environment.Config',
        'ssh',
        cwd === undefined
          ? `cannot find the home directory of ${targetName(this.target)}: pwd printed ${JSON.stringify(output.trim())}`
          : `terminal.ssh.cwd ${cwd} is not a directory on ${targetName(this.target)}: ${output.trim()}`,
      );
    }
    this.workdir = dir;
    this.log?.info({ target: targetName(this.target), workdir: dir }, 'ssh environment ready');
  }

  private async run(script: string): Promise<{ code: number | null; output: string }> {
    const proc = this.spawn(script, { stdin: '' });
    const chunks: Buffer[] = [];
    proc.onData((c) => chunks.push(c));
    const code = await proc.exited;
    return { code, output: Buffer.concat(chunks).toString('utf8') };
  }

  spawn(script: string, opts: SpawnOptions & { stdin?: string } = {}): TransportProcess {
    const conn = this.conn;
    const pty = opts.pty ? { cols: opts.pty.cols, rows: opts.pty.rows, term: 'xterm-256color' } : undefined;
    const open =
      conn && !this.closed
        ? conn.exec(sshCommand(script, this.settings.env, pty !== undefined), pty)
        : Promise.reject(
            new EnvironmentError(
              'Environment.Gone',
              'ssh',
              `spawn before start() or after close() on ${targetName(this.target)}`,
            ),
          );
    return new SshProcess(open, opts.stdin, pty !== undefined);
  }

  async alive(): Promise<boolean> {
    if (this.closed || !this.conn) return false;
    if (this.conn.up) return true;
    // Dropped: one quick attempt, without the retry loop, so a dead host answers fast.
    try {
      await this.conn.acquire(false);
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.conn) releaseSshConnection(this.conn);
    this.conn = undefined;
  }
}

export const sshBackend: BackendDefinition<SshSettings> = {
  name: 'ssh',
  description:
    'Runs commands on a remote host over SSH (one shared connection per login; host keys checked against known_hosts)',
  settings: sshSettingsSchema,
  unavailable: sshUnavailable,
  create: (settings, ctx) => new SshTransport(settings, ctx.log),
};
