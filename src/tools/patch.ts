// The `patch` tool: targeted find-and-replace edits in a file, refusing ambiguous matches. Worker-only.
import { z } from 'zod';
import { fileWriteSubject } from '../detector/engine/subject.js';
import { registry } from '../registry/index.js';
import { toolError } from '../common/errors.js';
import { FileRefusal, refusalMessage, updateTaskFile } from '../files/task-files.js';

/** Files over this size are not edited (the whole file is read and written again). */
const MAX_BYTES = 20 * 1024 * 1024;

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
  gate: ({ path, old_string, new_string, replace_all }) =>
    fileWriteSubject('patch', path, new_string, {
      old: String(old_string),
      new: String(new_string),
      all: replace_all === true,
    }),
  timeoutSeconds: 60,
  handler: async ({ path, old_string, new_string, replace_all }, ctx) => {
    let replacements = 0;
    try {
      await updateTaskFile(ctx, path, MAX_BYTES, (text) => {
        const found = countOccurrences(text, old_string);
        if (found === 0) throw new FileRefusal(`old_string was not found in ${path}`);
        if (found > 1 && !replace_all)
          throw new FileRefusal(
            `old_string matches ${found} places in ${path}; add context to make it unique or set replace_all`,
          );
        replacements = replace_all ? found : 1;
        return replace_all ? text.split(old_string).join(new_string) : text.replace(old_string, () => new_string);
      });
    } catch (err) {
      const refused = refusalMessage(err);
      if (refused === undefined) throw err;
      return toolError(refused);
    }
    return JSON.stringify({ path, replacements });
  },
});
