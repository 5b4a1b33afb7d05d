// The `write_file` tool: writes a whole file, creating parent directories. Worker-only.
import { z } from 'zod';
import { fileWriteSubject } from '../detector/engine/subject.js';
import { registry } from '../registry/index.js';
import { refusalMessage, writeTaskFile } from '../files/task-files.js';
import { toolError } from '../common/errors.js';

registry.register({
  name: 'write_file',
  toolset: 'file',
  emoji: '✍️',
  description: 'Write `content` to a file, replacing it if it exists and creating parent directories as needed.',
  schema: z.object({
    path: z.string().min(1).describe('File path, relative to the working directory'),
    content: z.string().describe('The complete new content of the file'),
  }),
  // Writing the same content twice leaves the same file: safe to retry.
  sideEffects: 'idempotent',
  parallelSafe: true,
  isAsync: true,
  pathArg: 'path',
  // Judged like a shell redirect to the same path: writing a git hook or .git/config asks, as `echo > ...` does.
  gate: ({ path, content }) => fileWriteSubject('write_file', path, content),
  timeoutSeconds: 60,
  handler: async ({ path, content }, ctx) => {
    try {
      await writeTaskFile(ctx, path, content);
    } catch (err) {
      const refused = refusalMessage(err);
      if (refused === undefined) throw err;
      return toolError(refused);
    }
    return JSON.stringify({ path, bytes_written: Buffer.byteLength(content, 'utf8') });
  },
});
