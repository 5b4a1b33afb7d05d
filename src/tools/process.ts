// The `process` tool: the task's background processes started by `terminal` with background: true — list, poll,
// log, wait, kill, and standard input (write, submit, close). Worker-only.
import { z } from 'zod';
import { environmentManager } from '../environments/current.js';
import { registry } from '../registry/index.js';
import { environmentAvailable, inTaskEnvironment, modelOutput } from './task-environment.js';

/** Output one poll or log call returns at most; the rest stays for the next call. */
const CHUNK_BYTES = 20_000;
const MAX_WAIT_SECONDS = 600;

const ACTIONS = ['list', 'poll', 'log', 'wait', 'kill', 'write', 'submit', 'close'] as const;

registry.register({
  name: 'process',
  toolset: 'terminal',
  emoji: '⚙️',
  description:
    'Manage background processes started with terminal(background: true). Actions: list; poll (status and output since the last poll); ' +
    'log (output from offset, up to limit bytes); wait (until it exits or timeout seconds pass); kill (its whole process group); ' +
    'write (send data to its standard input as is); submit (send one line, Enter included); close (end its standard input).',
  schema: z.object({
    action: z.enum(ACTIONS).describe('What to do'),
    process_id: z.string().optional().describe('The id terminal returned (every action but list)'),
    data: z.string().optional().describe('Text for write / submit'),
    offset: z.number().int().min(0).optional().describe('log: byte offset to read from (default 0)'),
    limit: z
      .number()
      .int()
      .positive()
      .max(CHUNK_BYTES)
      .optional()
      .describe(`log: bytes to read (default ${CHUNK_BYTES})`),
    timeout: z
      .number()
      .positive()
      .max(MAX_WAIT_SECONDS)
      .optional()
      .describe('wait: seconds to wait at most (default 30)'),
  }),
  sideEffects: 'changes-world',
  parallelSafe: false,
  environment: true,
  checkFn: environmentAvailable,
  isAsync: true,
  // Data for a background shell, interpreter or REPL is judged as input to the command it was started with.
  gate: async ({ action, process_id: id, data }, ctx) => {
    if ((action !== 'write' && action !== 'submit') || typeof id !== 'string' || typeof data !== 'string')
      return undefined;
    const manager = environmentManager();
    if (!manager.has(ctx.taskId, ctx.backend ?? manager.terminal.backend)) return undefined; // no process: the call fails
    const input = await manager.use(ctx.taskId, { hostCwd: ctx.cwd, backend: ctx.backend }, async ({ env }) =>
      env.processes.inputOf(id),
    );
    if (!input) return undefined;
    const stdin = `${input.unterminated}${data}${action === 'submit' ? '\n' : ''}`;
    return {
      text: input.command,
      stdin,
      inputOnly: true,
      ...(input.pty ? { terminal: true } : {}),
      shown: `process ${id} (${input.command}) ${action}: ${stdin}`,
    };
  },
  timeoutSeconds: MAX_WAIT_SECONDS + 60,
  handler: async ({ action, process_id: id, data, offset, limit, timeout }, ctx) => {
    if (action !== 'list' && !id)
      return JSON.stringify({ error: `action '${action}' needs process_id (see action list)` });
    if ((action === 'write' || action === 'submit') && data === undefined)
      return JSON.stringify({ error: `action '${action}' needs data` });
    return inTaskEnvironment(ctx, async ({ env }) => {
      const table = env.processes;
      switch (action) {
        case 'list':
          return { processes: await table.list() };
        case 'poll': {
          const p = await table.poll(id!, CHUNK_BYTES);
          const { new_output, ...info } = p;
          return { ...info, new_output: modelOutput(new_output) };
        }
        case 'log': {
          const { data: bytes, ...info } = await table.log(id!, offset ?? 0, limit ?? CHUNK_BYTES);
          return { ...info, output: modelOutput(bytes) };
        }
        case 'wait': {
          const w = await table.wait(id!, timeout ?? 30, ctx.signal);
          const tail = await table.log(id!, Math.max(0, w.output_bytes - 2_000), 2_000);
          return { ...w, output_tail: modelOutput(tail.data) };
        }
        case 'kill':
          return { ...(await table.kill(id!)) };
        case 'write':
          return { ...(await table.write(id!, data!)), written: data!.length };
        case 'submit': {
          // A terminal's Enter is a carriage return; a pipe's end of line is a newline.
          const info = await table.write(id!, `${data!}${table.isPty(id!) ? '\r' : '\n'}`);
          return { ...info, submitted: data };
        }
        case 'close':
          return { ...(await table.closeInput(id!)), stdin: 'closed' };
      }
    });
  },
});
