// A long-running `tether` command (serve, batch, run) as a child process: its output so far, waiting for a line,
// sending signals, waiting for the exit. For end-to-end tests that act as a user at a terminal.
import { spawn, type ChildProcess } from 'node:child_process';
import { cliPath, until } from './cli.js';

export interface CliProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves to the first match of `pattern` in the output so far or later. */
  waitFor(pattern: RegExp, what: string, timeoutMs?: number): Promise<RegExpExecArray>;
  exited(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export function startCli(args: string[], opts: { cwd?: string; env?: Record<string, string> }): CliProcess {
  const child = spawn('node', [cliPath, ...args], {
    cwd: opts.cwd,
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    output: () => out,
    async waitFor(pattern, what, timeoutMs = 60_000) {
      await until(
        `${what} (output so far: ${JSON.stringify(out.slice(-500))})`,
        () => pattern.test(out) || child.exitCode !== null,
        timeoutMs,
      );
      const m = pattern.exec(out);
      if (!m) throw new Error(`tether exited (${String(child.exitCode)}) before ${what}: ${out}`);
      return m;
    },
    exited: () => exit,
    async kill(signal = 'SIGKILL') {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(signal);
      await exit;
    },
  };
}

/** No stack trace and no "unexpected error": what a user sees for bad input is a line, not a crash report. */
export const looksLikeACrash = (text: string): boolean =>
  /unexpected error|\n\s+at .+:\d+:\d+|TypeError|RangeError/.test(text);
