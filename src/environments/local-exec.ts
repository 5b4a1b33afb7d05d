// Runs one shell command on this machine in its own process group; a timeout or abort kills the whole tree. Worker-only.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { HeadTailBuffer } from './output-buffer.js';

export interface ExecRequest {
  command: string;
  cwd: string;
  timeoutMs: number;
  env?: Record<string, string>;
  stdin?: string;
  signal?: AbortSignal;
  /** Sees output as it arrives. */
  onOutput?: (chunk: Buffer) => void;
}

/** A non-zero exit code is a result, not an error. */
export interface ExecResult {
  exitCode: number | null;
  /** stdout and stderr interleaved as they arrived. */
  output: string;
  timedOut: boolean;
  cancelled: boolean;
  durationMs: number;
}

const KILL_GRACE_MS = 2_000;
/** After the shell exits, how long to wait for pipes held open by processes it left running. */
const DRAIN_MS = 300;

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

/**
 * A watcher in the command's process group that kills the group if this process (the worker) dies while the
 * command runs: a command must not go on unobserved after a crash, or a retry could run it twice.
 */
function orphanGuard(workerPid: number): string {
  return (
    `( while kill -0 ${workerPid} 2>/dev/null && kill -0 $$ 2>/dev/null; do sleep 1; done; ` +
    `kill -0 ${workerPid} 2>/dev/null || kill -KILL 0 ) </dev/null >/dev/null 2>&1 &`
  );
}

export function runLocal(req: ExecRequest): Promise<ExecResult> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', `${orphanGuard(process.pid)}\n__tether_cmd=$1; shift; eval "$__tether_cmd"`, 'tether', req.command], {
      cwd: req.cwd,
      env: { ...process.env, ...req.env },
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out = new HeadTailBuffer();
    let timedOut = false;
    let cancelled = false;
    let settled = false;
    const stop = (why: 'timeout' | 'abort'): void => {
      if (why === 'timeout') timedOut = true;
      else cancelled = true;
      if (child.pid === undefined) return;
      const pid = child.pid;
      killGroup(pid, 'SIGTERM');
      setTimeout(() => killGroup(pid, 'SIGKILL'), KILL_GRACE_MS).unref();
    };
    const timer = setTimeout(() => stop('timeout'), req.timeoutMs);
    const onAbort = (): void => stop('abort');
    req.signal?.addEventListener('abort', onAbort, { once: true });
    if (req.signal?.aborted) onAbort();

    const onData = (c: Buffer): void => {
      out.push(c);
      req.onOutput?.(c);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.stdin.on('error', () => undefined); // the command may exit without reading its input
    child.stdin.end(req.stdin ?? '');

    const finish = (exitCode: number | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.signal?.removeEventListener('abort', onAbort);
      child.stdout.destroy();
      child.stderr.destroy();
      resolve({ exitCode, output: out.text(), timedOut, cancelled, durationMs: Date.now() - started });
    };
    child.on('error', (err) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(err);
    });
    child.on('exit', (code, signal) => {
      const exitCode = code ?? (signal ? 128 + constants.signals[signal] : null);
      // Output still in flight arrives before 'close'; a background process holding the pipe must not hang us.
      child.on('close', () => finish(exitCode));
      setTimeout(() => finish(exitCode), DRAIN_MS).unref();
    });
  });
}
