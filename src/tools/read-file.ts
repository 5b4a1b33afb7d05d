// The `read_file` tool: numbered lines of a text file, with paging. Worker-only.
import { z } from 'zod';
import { registry } from '../registry/index.js';
import { toolError } from '../common/errors.js';
import { readTaskFile, refusalMessage } from '../files/task-files.js';

const MAX_LINE_CHARS = 2_000;
const MAX_BYTES = 20 * 1024 * 1024;

registry.register({
  name: 'read_file',
  toolset: 'file',
  emoji: '📖',
  description:
    'Read a text file. Returns numbered lines ("N|text") from `offset` (1-based) for up to `limit` lines, and the total line count.',
  schema: z.object({
    path: z.string().min(1).describe('File path, relative to the working directory'),
    offset: z.number().int().min(1).optional().describe('First line to return (1-based, default 1)'),
    limit: z.number().int().min(1).max(5_000).optional().describe('Number of lines (default 500)'),
  }),
  sideEffects: 'read-only',
  parallelSafe: true,
  isAsync: true,
  pathArg: 'path',
  timeoutSeconds: 60,
  handler: async ({ path, offset, limit }, ctx) => {
    let data: Buffer;
    try {
      data = await readTaskFile(ctx, path, MAX_BYTES);
    } catch (err) {
      const refused = refusalMessage(err);
      if (refused === undefined) throw err;
      return toolError(refused.endsWith(' is a directory') ? `${refused}; use search_files to list it` : refused);
    }
    if (data.subarray(0, 8192).includes(0))
      return toolError(`${path} looks like a binary file (it contains NUL bytes)`);
    const lines = data.toString('utf8').split('\n');
    if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
    const start = (offset ?? 1) - 1;
    const count = limit ?? 500;
    const slice = lines.slice(start, start + count).map((line, i) => {
      const text = line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}... [line cut]` : line;
      return `${String(start + i + 1).padStart(6)}|${text}`;
    });
    return JSON.stringify({
      path,
      content: slice.join('\n'),
      total_lines: lines.length,
      ...(start + count < lines.length ? { next_offset: start + count + 1 } : {}),
    });
  },
});
