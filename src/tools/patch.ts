// The `patch` tool: targeted find-and-replace edits in a file, refusing ambiguous matches. Worker-only.
import { readFile, writeFile } from 'node:fs/promises';
import { z } from 'zod';
import { fileWriteSubject } from '../approval/subject.js';
import { registry } from '../registry/index.js';
import { toolError } from '../common/errors.js';
import { resolveTaskPath } from './task-paths.js';

function countOccurrences(haystack: string, needle: string): number {
  let count = 0;
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + needle.length)) count += 1;
  return count;
}

registry.register({
  name: 'patch',
  toolset: 'file',
  emoji: '🩹',
  description:
    'Replace `old_string` with `new_string` in a file. `old_string` must match exactly once unless `replace_all` is true; ' +
    'include enough surrounding lines to make it unique.',
  schema: z.object({
    path: z.string().min(1).describe('File path, relative to the working directory'),
    old_string: z.string().min(1).describe('Exact text to find'),
    new_string: z.string().describe('Replacement text'),
    replace_all: z.boolean().optional().describe('Replace every occurrence (default false)'),
  }),
  sideEffects: 'changes-world',
  parallelSafe: true,
  isAsync: true,
  pathArg: 'path',
  // Judged like a shell redirect to the same path: writing a git hook or .git/config asks, as `echo > ...` does.
  gate: ({ path, new_string }) => fileWriteSubject('patch', path, new_string),
  timeoutSeconds: 60,
  handler: async ({ path, old_string, new_string, replace_all }, ctx) => {
    const abs = resolveTaskPath(ctx, path);
    const text = await readFile(abs, 'utf8').catch(() => undefined);
    if (text === undefined) return toolError(`File not found: ${path}`);
    const found = countOccurrences(text, old_string);
    if (found === 0) return toolError(`old_string was not found in ${path}`);
    if (found > 1 && !replace_all) {
      return toolError(
        `old_string matches ${found} places in ${path}; add context to make it unique or set replace_all`,
      );
    }
    const updated = replace_all ? text.split(old_string).join(new_string) : text.replace(old_string, () => new_string);
    await writeFile(abs, updated, 'utf8');
    return JSON.stringify({ path, replacements: replace_all ? found : 1 });
  },
});
