// Finds a project's files the way test runners and tools do (test files, conftest.py, config files), by walking the
// directory listings read where the command runs: bounded in depth and count, skipping dependency and build
// directories. Pure.
import { listingKey } from '../../engine/scripts.js';
import type { CheckContext } from '../../checks/types.js';
import { joinKey } from './run-file.js';

/** Directories runners do not collect from: dependencies, virtual environments, builds, VCS data, caches. */
const SKIP =
  /^(\.[^/]*|node_modules|venv|env|site-packages|__pycache__|build|dist|out|target|coverage|vendor|bower_components|\w+\.egg-info|__snapshots__)$/;

/**
 * Files below `roots` (keys) whose name `match` accepts, at most `depth` directories down and `max` files; undefined
 * while a listing is not read yet. A bound reached asks, reported as `who`'s. A root that is a file is taken as it is.
 */
export function discover(
  ctx: CheckContext,
  who: string,
  roots: readonly string[],
  match: (name: string, dir: string) => boolean,
  opts: { depth?: number; max?: number } = {},
): string[] | undefined {
  const fail = (error: string): undefined => {
    ctx.add('unread-script', `${who}: ${error}`);
    return undefined;
  };
  const depth = opts.depth ?? 6;
  const max = opts.max ?? 300;
  const files: string[] = [];
  let level = [...roots];
  let pending = false;
  for (let d = 0; d <= depth && level.length > 0; d += 1) {
    const next: string[] = [];
    for (const dir of level) {
      const listing = ctx.readFile(listingKey(dir));
      if (listing === undefined) {
        pending = true;
        continue;
      }
      if ('missing' in listing) continue;
      if ('error' in listing) return fail(`${dir} ${listing.error}`);
      if (!('entries' in listing)) continue;
      for (const entry of listing.entries) {
        const isDir = entry.endsWith('/');
        const name = isDir ? entry.slice(0, -1) : entry;
        if (isDir && !SKIP.test(name)) next.push(joinKey(dir, name));
        else if (!isDir && match(name, dir)) files.push(joinKey(dir, name));
        if (files.length > max) return fail(`more than ${max} files to read below ${roots.join(', ')}`);
      }
    }
    level = next;
  }
  if (pending) return undefined;
  if (level.length > 0) return fail(`directories deeper than ${depth} levels below ${roots.join(', ')}`);
  return files;
}
