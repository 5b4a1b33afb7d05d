// The local backend: scripts run by /bin/sh on the worker's machine, in the task's directory; PTYs through node-pty. Worker-only.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { constants } from 'node:os';
import { z } from 'zod';
import type { BackendDefinition } from '../../backend-types.js';
import { EnvironmentError, type SpawnOptions, type Transport, type TransportProcess } from '../../types.js';

/** After the script exits, how long to wait for pipes still held open by processes it left behind. */
const DRAIN_MS = 300;

type PtyModule = typeof import('node-pty');
let ptyModule: Promise<PtyModule> | undefined;

function loadPty(): Promise<PtyModule> {
  ptyModule ??= import('node-pty').catch((err: unknown) => {
    ptyModule = undefined;
    throw new EnvironmentError('Environment.Unsupported', 'local', `node-pty could not be loaded (${(err as Error).message}); PTY mode needs its native module built at npm ci`);
  });
  return ptyModule;
}

function signalCode(signal: NodeJS.Signals | number | null | undefined): number | null {
  if (signal === null || signal === undefined || signal === 0) return null;
  return 128 + (typeof signal === 'number' ? signal : (constants.signals[signal] ?? 0));
}

/** A child process with pipes. */
function pipeProcess(script: string, cwd: string, stdin: string | undefined): TransportProcess {
  const child = spawn('/bin/sh', ['-c', script], { cwd, env: process.env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
  const listeners: ((c: Buffer) => void)[] = [];
  const emit = (c: Buffer): void => listeners.forEach((l) => l(c));
  child.stdout.on('data', emit);
  child.stderr.on('data', emit);
  child.stdin.on('error', () => undefined); // the script may exit without reading its input
  if (stdin !== undefined) child.stdin.end(stdin);
  const exited = new Promise<number | null>((resolve, reject) => {
    let code: number | null = null;
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      child.stdout.destroy();
      child.stderr.destroy();
      resolve(code);
    };
    child.on('error', (err) => reject(new EnvironmentError('Environment.Unreachable', 'local', `cannot start /bin/sh in ${cwd}: ${err.message}`)));
    child.on('exit', (c, s) => {
      code = c ?? signalCode(s);
      child.on('close', finish);
      setTimeout(finish, DRAIN_MS).unref();
    });
  });
  return {
    onData: (l) => listeners.push(l),
    write: (d) => child.stdin.write(d),
    end: () => child.stdin.end(),
    exited,
    destroy: () => {
      child.stdout.destroy();
      child.stderr.destroy();
      child.stdin.destroy();
    },
  };
}

/** A child process on a pseudo-terminal (node-pty); its output arrives as the terminal's. */
function ptyProcess(script: string, cwd: string, opts: SpawnOptions & { stdin?: string }): TransportProcess {
  const listeners: ((c: Buffer) => void)[] = [];
  const queued: (string | Buffer)[] = [];
  let term: import('node-pty').IPty | undefined;
  let ended = false;
  const exited = loadPty().then(
    (pty) =>
      new Promise<number | null>((resolve) => {
        term = pty.spawn('/bin/sh', ['-c', script], { cwd, env: process.env as Record<string, string>, cols: opts.pty!.cols, rows: opts.pty!.rows, name: 'xterm-256color', encoding: null });
        term.onData((d) => {
          const c = typeof d === 'string' ? Buffer.from(d) : Buffer.from(d);
          listeners.forEach((l) => l(c));
        });
        term.onExit(({ exitCode, signal }) => resolve(signal ? signalCode(signal) : exitCode));
        for (const q of queued.splice(0)) term.write(typeof q === 'string' ? q : q.toString('utf8'));
        if (opts.stdin) term.write(opts.stdin);
        if (ended) term.write('\x04');
      }),
  );
  return {
    onData: (l) => listeners.push(l),
    write: (d) => (term ? term.write(typeof d === 'string' ? d : d.toString('utf8')) : queued.push(d)),
    // A terminal has no end of input; Ctrl-D at the start of a line is what programs read as one.
    end: () => {
      ended = true;
      term?.write('\x04');
    },
    resize: (s) => term?.resize(s.cols, s.rows),
    exited,
    destroy: () => term?.kill('SIGHUP'),
  };
}

export class LocalTransport implements Transport {
  readonly backend = 'local';
  readonly capabilities = { streamsStdin: true, pty: true };

  constructor(readonly workdir: string) {}

  async start(): Promise<void> {
    if (!existsSync(this.workdir)) throw new EnvironmentError('Environment.Config', 'local', `working directory ${this.workdir} does not exist`);
  }

  spawn(script: string, opts: SpawnOptions & { stdin?: string } = {}): TransportProcess {
    return opts.pty ? ptyProcess(script, this.workdir, opts) : pipeProcess(script, this.workdir, opts.stdin);
  }

  async alive(): Promise<boolean> {
    return existsSync(this.workdir);
  }

  async close(): Promise<void> {}
}

export const localBackend: BackendDefinition<Record<string, never>> = {
  name: 'local',
  description: 'this machine, in the task\'s working directory',
  settings: z.strictObject({}),
  create: (_settings, ctx) => new LocalTransport(ctx.hostCwd),
};
