// The lexical check of a path against the task's working directory (links followed as they are now): the fallback
// where /proc is missing, and where only a directory to start a sandboxed command in is needed. Worker-only.
import { lstatSync, readlinkSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { TetherError } from '../common/errors.js';
import type { TaskView } from '../environments/task-view.js';

/**
 * Where `p` really points: every symlink on the way is followed, dangling ones included (a link to a file that
 * does not exist yet must not let a write land outside the working directory).
 */
function realish(p: string, hops = 0): string {
  if (hops > 40) throw new TetherError('Path.OutsideWorkdir', `path '${p}' has too many levels of symbolic links`);
  const parts = resolve(p).split(sep).filter(Boolean);
  let current: string = sep;
  for (let i = 0; i < parts.length; i += 1) {
    const next = join(current, parts[i]!);
    let info;
    try {
      info = lstatSync(next);
    } catch {
      return join(next, ...parts.slice(i + 1)); // the rest does not exist yet
    }
    if (info.isSymbolicLink()) {
      const target = resolve(dirname(next), readlinkSync(next));
      return realish(join(target, ...parts.slice(i + 1)), hops + 1);
    }
    current = next;
  }
  return current;
}

/** Where a file tool works: the task's directory, and whether the configuration lets file tools leave it. */
export interface FileScope {
  cwd: string;
  allowOutsideCwd?: boolean;
  /** What the task may see (task-view.ts); default: the worker's (the local sandbox's hidden paths). */
  view?: TaskView;
}

function inside(root: string, p: string): boolean {
  const rel = relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * Absolute path for `p` given by the model. Outside the working directory (also through a symlink) it is
 * refused unless the configuration allows it.
 */
export function resolveTaskPath(ctx: FileScope, p: string): string {
  const abs = resolve(ctx.cwd, p);
  if (ctx.allowOutsideCwd) return abs;
  if (!inside(realish(ctx.cwd), realish(abs))) {
    throw new TetherError(
      'Path.OutsideWorkdir',
      `path '${p}' is outside the working directory ${ctx.cwd} (set files.allow_outside_cwd: true in config.yaml to allow)`,
    );
  }
  return abs;
}
