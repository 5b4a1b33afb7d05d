// The `read_file` tool: numbered lines of a text file, with paging. Worker-only.
import { open, stat } from 'node:fs/promises';
import { z } from 'zod';
import { registry } from '../registry/index.js';
import { toolError } from '../common/errors.js';
import { resolveTaskPath } from './task-paths.js';

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
    const abs = resolveTaskPath(ctx, path);
    const info = await stat(abs).catch(() => undefined);
    if (!info) return toolError(`File not found: ${path}`);
    if (info.isDirectory()) return toolError(`${path} is a directory; use search_files to list it`);
    if (info.size > MAX_BYTES)
      return toolError(`${path} is ${info.size} bytes; files over ${MAX_BYTES} bytes are not read`);
    const handle = await open(abs, 'r');
    let data: Buffer;
    try {
      data = await handle.readFile();
    } finally {
      await handle.close();
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
