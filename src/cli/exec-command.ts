// `tether exec`: one command through the terminal tool and its environment code, on any backend — the way to check
// a backend's set-up. Worker-only.
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { loadConfig, MAX_FOREGROUND_TIMEOUT } from '../config/config.js';
import { builtinBackendNames } from '../environments/backends.js';
import { closeEnvironments } from '../environments/current.js';
import { registry } from '../registry/index.js';
import { loadTools } from './tools-command.js';
import { CliError, positiveIntOption } from './errors.js';

interface ExecOptions {
  backend?: string;
  task?: string;
  cwd?: string;
  pty?: boolean;
  timeout?: string;
  json?: boolean;
}

export function addExecCommand(program: Command): void {
  program
    .command('exec')
    .description(
      'Run one command in a terminal environment (as the terminal tool would) and print its output and exit code',
    )
    .argument('<command...>', 'the command; several words are joined with spaces and run by the shell')
    .option(
      '--backend <name>',
      `backend (default: terminal.backend of config.yaml); built in: ${builtinBackendNames().join(', ')}`,
    )
    .option('--task <id>', 'task id the environment is made for (default: a new one)')
    .option('--cwd <dir>', "the task's working directory on this machine (default: the current directory)")
    .option('--pty', 'run it on a pseudo-terminal')
    .option(
      '--timeout <seconds>',
      'seconds before the command is killed (default: terminal.default_timeout; at most terminal.max_timeout, 600)',
    )
    .option('--json', 'print the tool result as JSON')
    .action(async (words: string[], opts: ExecOptions) => {
      const config = loadConfig();
      const terminal = opts.backend ? { ...config.terminal, backend: opts.backend } : config.terminal;
      const timeout = positiveIntOption(opts.timeout, '--timeout');
      if (timeout !== undefined && timeout > terminal.max_timeout) {
        throw new CliError(
          `--timeout ${timeout} is over the foreground limit of ${terminal.max_timeout} s (terminal.max_timeout in config.yaml, which may be raised to ${MAX_FOREGROUND_TIMEOUT})`,
        );
      }
      await loadTools({ ...config, terminal });
      const taskId = opts.task ?? `exec-${randomBytes(4).toString('hex')}`;
      const started = Date.now();
      let raw: string;
      try {
        raw = await registry.dispatch(
          'terminal',
          { command: words.join(' '), pty: opts.pty || undefined, timeout },
          { taskId, cwd: resolve(opts.cwd ?? '.') },
        );
      } catch (err) {
        // A retryable failure (backend unreachable) is what a worker would retry; here it is the answer.
        throw new CliError(`${terminal.backend}: ${(err as Error).message}`, 1);
      } finally {
        await closeEnvironments();
      }
      const result = JSON.parse(raw) as {
        exit_code?: number | null;
        output?: string;
        error?: string;
        sandbox?: string;
      };
      if (opts.json) process.stdout.write(`${raw}\n`);
      else if (result.output) process.stdout.write(result.output.endsWith('\n') ? result.output : `${result.output}\n`);
      if (result.exit_code === undefined) throw new CliError(result.error ?? 'the command did not run', 1);
      const seconds = ((Date.now() - started) / 1000).toFixed(2);
      // What the environment did on its own (a write refused, a protected file moved out, a limit reached) is said.
      if (!opts.json && result.sandbox) process.stderr.write(`tether: ${result.sandbox}\n`);
      if (!opts.json)
        process.stderr.write(
          `[${terminal.backend} · exit ${String(result.exit_code)} · ${seconds} s${result.error ? ` · ${result.error}` : ''}]\n`,
        );
      process.exitCode = result.exit_code ?? 1;
    });
}
