// The `search_files` tool: regex search over file contents, or glob search over file names. Worker-only.
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { z } from 'zod';
import { registry } from '../registry/index.js';
import { isTetherError, toolError } from '../common/errors.js';
import { globMatches, globToRegExp } from './glob.js';
import { RegexMatcher } from './regex-matcher.js';
import { resolveTaskPath } from './task-paths.js';

const SKIP_DIRS = new Set(['.git', 'node_modules', '.hg', '.svn', '__pycache__']);
const MAX_FILE_BYTES = 1024 * 1024;
const MAX_LINE_CHARS = 300;
/** Time one file's matching may take; a pattern that backtracks catastrophically is stopped, not the worker. */
const REGEX_FILE_TIMEOUT_MS = 5_000;

async function* walk(root: string, signal?: AbortSignal): AsyncGenerator<string> {
  const stack = [root];
  while (stack.length > 0) {
    if (signal?.aborted) return;
    const dir = stack.pop()!;
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    entries.sort((a, b) => (a.name < b.name ? 1 : -1));
    for (const e of entries) {
      const full = join(dir, e.name);
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name)) stack.push(full);
      } else if (e.isFile()) {
        yield full;
      }
    }
  }
}

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
    const root = resolveTaskPath(ctx, path ?? '.');
    const info = await stat(root).catch(() => undefined);
    if (!info?.isDirectory()) return toolError(`Not a directory: ${path ?? '.'}`);
    const max = limit ?? 50;
    const rel = (f: string): string => relative(root, f).split(sep).join('/');
    const matches: string[] = [];
    let truncated = false;
    if ((target ?? 'content') === 'files') {
      const re = globToRegExp(pattern);
      for await (const f of walk(root, ctx.signal)) {
        if (!globMatches(re, rel(f), pattern.includes('/'))) continue;
        if (matches.length === max) {
          truncated = true;
          break;
        }
        matches.push(rel(f));
      }
      return JSON.stringify({ files: matches, count: matches.length, truncated });
    }
    let matcher: RegexMatcher;
    try {
      matcher = new RegexMatcher(pattern, REGEX_FILE_TIMEOUT_MS);
    } catch (err) {
      return toolError(`Invalid regular expression: ${(err as Error).message}`);
    }
    const only = file_glob ? globToRegExp(file_glob) : undefined;
    try {
      for await (const f of walk(root, ctx.signal)) {
        if (only && !globMatches(only, rel(f), file_glob!.includes('/'))) continue;
        const size = (await stat(f).catch(() => undefined))?.size ?? 0;
        if (size > MAX_FILE_BYTES) continue;
        const data = await readFile(f).catch(() => undefined);
        if (!data || data.subarray(0, 8192).includes(0)) continue;
        const found = await matcher.match(data.toString('utf8'), max - matches.length + 1, MAX_LINE_CHARS);
        for (const [line, text] of found) {
          if (matches.length === max) {
            truncated = true;
            break;
          }
          matches.push(`${rel(f)}:${line}:${text}`);
        }
        if (truncated) break;
      }
    } catch (err) {
      if (isTetherError(err, 'Tool.RegexTimeout')) return toolError(err.message);
      throw err;
    } finally {
      await matcher.close();
    }
    return JSON.stringify({ matches, count: matches.length, truncated });
  },
});
