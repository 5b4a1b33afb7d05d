// The `terminal` tool: a shell command in the task's environment (local, Docker, SSH, ...), in the foreground with
// a timeout, in the background as a process, or on a PTY. Worker-only.
import { z } from 'zod';
import { MAX_FOREGROUND_TIMEOUT } from '../config/config.js';
import { environmentManager } from '../environments/current.js';
import { registry } from '../registry/index.js';
import { resolveTaskPath } from '../files/check-path.js';
import { environmentAvailable, inTaskEnvironment, modelOutput } from './task-environment.js';

/** terminal.max_timeout's ceiling: the activity's own timeout is built on it. */
const MAX_TIMEOUT_SECONDS = MAX_FOREGROUND_TIMEOUT;
/** Output kept in heartbeats, so an interrupted command's last output reaches the model. */
const PROGRESS_TAIL_CHARS = 2_000;
const PTY_SIZE = { cols: 120, rows: 40 };

registry.register({
  name: 'terminal',
  toolset: 'terminal',
  emoji: '💻',
  description:
    "Run a shell command (bash where available) in the task's environment and return its exit code and combined stdout/stderr. " +
    '`cd` and `export` carry over to the next command of the task. A non-zero exit code is reported, not raised. ' +
    'A command that runs past its timeout is killed (exit code 124, with the output so far). Long output keeps its start and end. ' +
    'Use background: true for servers and long jobs (returns a process id for the `process` tool), and pty: true for programs that need a terminal.',
  schema: z.object({
    command: z.string().min(1).describe('The shell command to run'),
    // No schema maximum: terminal.max_timeout is the limit in force, and the handler's refusal names it.
    timeout: z
      .number()
      .int()
      .positive()
      .optional()
      .describe(
        'Seconds before a foreground command is killed (default 180, at most 600 unless terminal.max_timeout says otherwise)',
      ),
    workdir: z
      .string()
      .optional()
      .describe("Directory to run in, relative to the task's working directory; a `cd` inside it is not carried over"),
    background: z.boolean().optional().describe('Start it in the background and return a process id at once'),
    pty: z.boolean().optional().describe('Run it on a pseudo-terminal (interactive programs, colour output)'),
    stdin: z.string().optional().describe('Text given to the command on standard input (foreground only)'),
  }),
  sideEffects: 'changes-world',
  parallelSafe: false,
  environment: true,
  checkFn: environmentAvailable,
  commandArg: 'command',
  cwdArg: 'workdir',
  // The command line, with its standard input: `sh` with a script on stdin is judged as that script.
  gate: ({ command, stdin, workdir, pty }) => ({
    text: String(command),
    stdin: typeof stdin === 'string' ? stdin : undefined,
    ...(pty === true && typeof stdin === 'string' ? { terminal: true } : {}),
    workdir: typeof workdir === 'string' && workdir !== '' ? workdir : undefined,
  }),
  isAsync: true,
  timeoutSeconds: MAX_TIMEOUT_SECONDS + 60,
  handler: async ({ command, timeout, workdir, background, pty, stdin }, ctx) => {
    const terminal = environmentManager().terminal;
    const seconds = timeout ?? terminal.default_timeout;
    if (!background && seconds > terminal.max_timeout) {
      return JSON.stringify({
        error: `timeout ${seconds}s is over the foreground limit of ${terminal.max_timeout}s (terminal.max_timeout); start long commands with background: true`,
      });
    }
    if (background && stdin !== undefined) {
      return JSON.stringify({
        error:
          'stdin is for foreground commands; write to a background process with the process tool (action write or submit)',
      });
    }
    return inTaskEnvironment(ctx, async ({ env }) => {
      // Locally the task's directory is a real path here and is checked; elsewhere the environment resolves it.
      const cwd = workdir === undefined ? undefined : env.backend === 'local' ? resolveTaskPath(ctx, workdir) : workdir;
      const size = pty ? PTY_SIZE : undefined;
      if (background) {
        const p = await env.processes.start(command, { cwd, pty: size });
        return {
          process_id: p.id,
          status: p.status,
          pty: p.pty,
          note: 'Running in the background: use the process tool (poll, log, wait, write, submit, close, kill) with this process_id.',
        };
      }
      let tail = '';
      const onOutput = (chunk: Buffer): void => {
        tail = (tail + chunk.toString('utf8')).slice(-PROGRESS_TAIL_CHARS);
        ctx.progress?.({ output_tail: tail });
      };
      const r = await env.run({
        command,
        cwd,
        stdin,
        timeoutSeconds: seconds,
        pty: size,
        signal: ctx.signal,
        onOutput,
      });
      const result: Record<string, unknown> = { exit_code: r.exitCode, output: modelOutput(r.output) };
      if (r.timedOut) result.error = `Command timed out after ${seconds}s and was killed`;
      if (r.cancelled)
        result.error = r.survivedKill
          ? 'Command was cancelled, but its process group was still there after KILL: it could not be confirmed dead'
          : 'Command was cancelled and killed';
      if (r.shellReplaced) result.shell = r.shellReplaced;
      const refused = r.exitCode !== 0 ? env.transport.refusalNote?.(r.output, Date.now() - r.durationMs) : undefined;
      // What the environment did on its own during the command (a limit reached, a protected file moved out) first.
      const sandbox = [...(r.enforced ?? []), ...(refused ? [refused] : [])];
      if (sandbox.length > 0) result.sandbox = sandbox.join('; ');
      return result;
    });
  },
});
