// A TransportProcess over a local CLI child (a pipe child or a node-pty terminal), used by the Singularity backend. Worker-only.
import { spawn as spawnChild } from 'node:child_process';
import { constants } from 'node:os';
import * as pty from 'node-pty';
import type { EnvironmentError, PtySize, TransportProcess } from '../../types.js';
import { baseEnvironment, looksLikeCredential } from '../../command-env.js';

interface CliSpawn {
  binary: string;
  args: string[];
  pty?: PtySize;
  stdin?: string;
  /** Turns the CLI's own failures (exit 255 with a FATAL line) into an EnvironmentError; resolves undefined for a plain result. */
  classify(code: number, tail: string): Promise<EnvironmentError | undefined>;
  /** How a failure to start the binary at all is reported. */
  spawnFailed(err: NodeJS.ErrnoException): EnvironmentError;
}

/** The CLI's own error lines are short; this much of the output's end is enough to recognise them. */
const TAIL_BYTES = 4_096;
/** After the child exits, how long to wait for pipes still held open by processes it left behind. */
const DRAIN_MS = 300;

function signalCode(signal: NodeJS.Signals | number | null | undefined): number | null {
  if (signal === null || signal === undefined || signal === 0) return null;
  const n = typeof signal === 'number' ? signal : constants.signals[signal];
  return n === undefined ? null : 128 + n;
}

/**
 * The CLI's own environment: the allowlisted variables and Apptainer's/Singularity's own settings (cache and
 * temporary directories, ...), but not the *ENV_ variables, which the CLI would put into the container, and not
 * its registry passwords. --containall keeps the rest of the worker's environment out of the container anyway.
 */
function cliEnvironment(): Record<string, string> {
  const own = Object.entries(process.env).filter(
    ([name, value]) =>
      value !== undefined &&
      /^(APPTAINER|SINGULARITY)_/.test(name) &&
      !/^(APPTAINER|SINGULARITY)ENV_/.test(name) &&
      !looksLikeCredential(name),
  ) as [string, string][];
  return { ...baseEnvironment(), ...Object.fromEntries(own) };
}

export function spawnCli(req: CliSpawn): TransportProcess {
  const listeners: ((chunk: Buffer) => void)[] = [];
  let tail = Buffer.alloc(0);
  const emit = (chunk: Buffer): void => {
    tail = Buffer.concat([tail, chunk]);
    if (tail.length > TAIL_BYTES) tail = tail.subarray(tail.length - TAIL_BYTES);
    for (const l of listeners) l(chunk);
  };
  const finish = async (code: number | null): Promise<number | null> => {
    if (code === null) return null;
    const err = await req.classify(code, tail.toString('utf8'));
    if (err) throw err;
    return code;
  };
  return req.pty ? spawnPty(req, emit, finish, listeners) : spawnPipes(req, emit, finish, listeners);
}

type Finish = (code: number | null) => Promise<number | null>;
type Listeners = ((chunk: Buffer) => void)[];

function spawnPipes(req: CliSpawn, emit: (c: Buffer) => void, finish: Finish, listeners: Listeners): TransportProcess {
  const child = spawnChild(req.binary, req.args, { stdio: ['pipe', 'pipe', 'pipe'], env: cliEnvironment() });
  child.stdout.on('data', emit);
  child.stderr.on('data', emit);
  // A closed stdin (the script does not read it) must not crash the worker with EPIPE.
  child.stdin.on('error', () => undefined);
  const exited = new Promise<number | null>((resolve, reject) => {
    let code: number | null = null;
    let settled = false;
    const settle = (): void => {
      if (settled) return;
      settled = true;
      finish(code).then(resolve, reject);
    };
    child.on('error', (err: NodeJS.ErrnoException) => {
      if (settled) return;
      settled = true;
      reject(req.spawnFailed(err));
    });
    child.on('exit', (exitCode, signal) => {
      code = exitCode ?? signalCode(signal);
      setTimeout(settle, DRAIN_MS).unref();
    });
    child.on('close', settle);
  });
  if (req.stdin !== undefined) child.stdin.end(req.stdin);
  return {
    onData: (l) => void listeners.push(l),
    write: (data) => void child.stdin.write(data),
    end: () => void child.stdin.end(),
    exited,
    destroy: () => {
      child.stdout.destroy();
      child.stderr.destroy();
      child.stdin.destroy();
      child.kill('SIGKILL');
    },
  };
}

function spawnPty(req: CliSpawn, emit: (c: Buffer) => void, finish: Finish, listeners: Listeners): TransportProcess {
  const size = req.pty ?? { cols: 80, rows: 24 };
  let term: pty.IPty;
  try {
    term = pty.spawn(req.binary, req.args, {
      cols: size.cols,
      rows: size.rows,
      env: cliEnvironment(),
    });
  } catch (err) {
    const failed = req.spawnFailed(err as NodeJS.ErrnoException);
    const exited = Promise.reject(failed);
    // The caller sees the rejection through `exited`; this only keeps Node from reporting it as unhandled first.
    exited.catch(() => undefined);
    return { onData: () => undefined, write: () => undefined, end: () => undefined, exited, destroy: () => undefined };
  }
  term.onData((data) => emit(Buffer.from(data, 'utf8')));
  const exited = new Promise<number | null>((resolve, reject) => {
    term.onExit(({ exitCode, signal }) => {
      // node-pty reports the exit before the last output is read; give the reader a moment.
      setTimeout(() => {
        finish(signal ? signalCode(signal) : exitCode).then(resolve, reject);
      }, 50);
    });
  });
  if (req.stdin !== undefined) {
    term.write(req.stdin);
    term.write('\x04');
  }
  return {
    onData: (l) => void listeners.push(l),
    write: (data) => term.write(typeof data === 'string' ? data : data.toString('utf8')),
    // EOF for a terminal is ^D at the start of a line.
    end: () => term.write('\x04'),
    resize: (s) => term.resize(s.cols, s.rows),
    exited,
    destroy: () => term.kill('SIGKILL'),
  };
}
