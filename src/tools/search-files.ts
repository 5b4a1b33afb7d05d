// The `search_files` tool: regex search over file contents, or glob search over file names. Worker-only.
import { z } from 'zod';
import { registry } from '../registry/index.js';
import { isTetherError, toolError } from '../common/errors.js';
import { compileGlob, globMatches } from './glob.js';
import { RegexMatcher } from './regex-matcher.js';
import { refusalMessage } from '../files/task-files.js';
import { walkTaskDir, type WalkedFile } from '../files/walk.js';

const SKIP_DIRS = new Set(['.git', 'node_modules', '.hg', '.svn', '__pycache__']);
const MAX_FILE_BYTES = 1024 * 1024;
const MAX_LINE_CHARS = 300;
/** Time one file's matching may take; a pattern that backtracks catastrophically is stopped, not the worker. */
const REGEX_FILE_TIMEOUT_MS = 5_000;

registry.register({
  name: 'search_files',
  toolset: 'file',
  emoji: '🔎',
  description:
    'Search files under a directory. target "content": lines matching the regular expression `pattern` ("path:line:text"). ' +
    'target "files": file paths matching the glob `pattern` (for example "*.ts" or "src/**/*.test.ts").',
  schema: z.object({
    pattern: z.string().min(1).describe('Regular expression (content) or glob (files)'),
    target: z.enum(['content', 'files']).optional().describe('What to search (default content)'),
    path: z.string().optional().describe('Directory to search, relative to the working directory (default ".")'),
    file_glob: z.string().optional().describe('Only search files whose name matches this glob (content search)'),
    limit: z.number().int().min(1).max(1_000).optional().describe('Most results to return (default 50)'),
  }),
  sideEffects: 'read-only',
  parallelSafe: true,
  isAsync: true,
  pathArg: 'path',
  timeoutSeconds: 120,
  handler: async ({ pattern, target, path, file_glob, limit }, ctx) => {
    const where = path ?? '.';
    const max = limit ?? 50;
    const matches: string[] = [];
    let truncated = false;
    // The walk starts lazily: its refusals (outside the directory, not found, not a directory) surface at first use.
    const files = walkTaskDir(ctx, where, SKIP_DIRS, ctx.signal);
    let first: IteratorResult<WalkedFile>;
    try {
      first = await files.next();
    } catch (err) {
      if ((err as { notDirectory?: boolean }).notDirectory) return toolError(`Not a directory: ${where}`);
      const refused = refusalMessage(err);
      if (refused === undefined) throw err;
      return toolError(refused.startsWith('File not found') ? `Not a directory: ${where}` : refused);
    }
    async function* all(): AsyncGenerator<WalkedFile> {
      if (!first.done) yield first.value;
      yield* files;
    }
    if ((target ?? 'content') === 'files') {
      const glob = compileGlob(pattern);
      for await (const f of all()) {
        if (!globMatches(glob, f.rel)) continue;
        if (matches.length === max) {
          truncated = true;
          break;
        }
        matches.push(f.rel);
      }
      await files.return(undefined);
      return JSON.stringify({ files: matches, count: matches.length, truncated });
    }
    let matcher: RegexMatcher;
    try {
      matcher = new RegexMatcher(pattern, REGEX_FILE_TIMEOUT_MS);
    } catch (err) {
      await files.return(undefined);
      return toolError(`Invalid regular expression: ${(err as Error).message}`);
    }
    const only = file_glob ? compileGlob(file_glob) : undefined;
    try {
      for await (const f of all()) {
        if (only && !globMatches(only, f.rel)) continue;
        const data = await f.read(MAX_FILE_BYTES);
        if (!data || data.subarray(0, 8192).includes(0)) continue;
        const found = await matcher.match(data.toString('utf8'), max - matches.length + 1, MAX_LINE_CHARS);
        for (const [line, text] of found) {
          if (matches.length === max) {
            truncated = true;
            break;
          }
          matches.push(`${f.rel}:${line}:${text}`);
        }
        if (truncated) break;
      }
    } catch (err) {
      if (isTetherError(err, 'Tool.RegexTimeout')) return toolError(err.message);
      throw err;
    } finally {
      await files.return(undefined);
      await matcher.close();
    }
    return JSON.stringify({ matches, count: matches.length, truncated });
  },
});
