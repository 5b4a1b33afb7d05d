// The `terminal` tool: runs a shell command (local backend) and returns exit code and capped output. Worker-only.
import { z } from 'zod';
import { runLocal } from '../environments/local-exec.js';
import { cleanOutput } from '../environments/output-buffer.js';
import { registry } from '../registry/index.js';
import { cutMiddle } from '../registry/truncate.js';
import { resolveTaskPath } from './task-paths.js';

/** Output kept for the model; the middle of longer output is cut. */
export const TERMINAL_OUTPUT_CHARS = 50_000;
const MAX_TIMEOUT_SECONDS = 3_600;

/** Output kept in heartbeats, so an interrupted command's last output reaches the model. */
const PROGRESS_TAIL_CHARS = 2_000;

registry.register({
  name: 'terminal',
  toolset: 'terminal',
  emoji: '💻',
  description:
    'Run a shell command (bash) in the task\'s working directory and return its exit code and combined stdout/stderr. ' +
    'A non-zero exit code is reported, not raised. Long output is cut in the middle.',
  schema: z.object({
    command: z.string().min(1).describe('The shell command to run'),
    timeout: z.number().int().positive().max(MAX_TIMEOUT_SECONDS).optional().describe('Seconds before the command is killed (default 180)'),
    workdir: z.string().optional().describe('Directory to run in, relative to the task\'s working directory'),
  }),
  sideEffects: 'changes-world',
  parallelSafe: false,
  commandArg: 'command',
  cwdArg: 'workdir',
  isAsync: true,
  timeoutSeconds: MAX_TIMEOUT_SECONDS + 60,
  handler: async ({ command, timeout, workdir }, ctx) => {
    const cwd = workdir ? resolveTaskPath(ctx, workdir) : ctx.cwd;
    const seconds = timeout ?? 180;
    let tail = '';
    const onOutput = (chunk: Buffer): void => {
      tail = (tail + chunk.toString('utf8')).slice(-PROGRESS_TAIL_CHARS);
      ctx.progress?.({ output_tail: tail });
    };
    const r = await runLocal({ command, cwd, timeoutMs: seconds * 1000, signal: ctx.signal, onOutput });
    const output = cutMiddle(cleanOutput(r.output), TERMINAL_OUTPUT_CHARS).text;
    const result: Record<string, unknown> = { exit_code: r.exitCode, output };
    if (r.timedOut) result.error = `Command timed out after ${seconds}s and was killed`;
    if (r.cancelled) result.error = 'Command was cancelled and killed';
    return JSON.stringify(result);
  },
});
