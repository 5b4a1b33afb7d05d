// Helper for file tools (registers nothing): resolves a path against the task's working directory. Worker-only.
import { existsSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import type { ToolContext } from '../registry/types.js';

export class PathOutsideWorkdirError extends Error {
  override readonly name = 'PathOutsideWorkdirError';
}

/** The real path of `p`, or of its nearest existing ancestor joined with the rest (for files not yet created). */
function realish(p: string): string {
  let existing = p;
  const rest: string[] = [];
  while (!existsSync(existing)) {
    const parent = dirname(existing);
    if (parent === existing) break;
    rest.unshift(existing.slice(parent.length + (parent.endsWith(sep) ? 0 : 1)));
    existing = parent;
  }
  return resolve(realpathSync(existing), ...rest);
}

function inside(root: string, p: string): boolean {
  const rel = relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * Absolute path for `p` given by the model. Outside the working directory (also through a symlink) it is
 * refused unless the configuration allows it.
 */
export function resolveTaskPath(ctx: ToolContext, p: string): string {
  const abs = resolve(ctx.cwd, p);
  if (ctx.allowOutsideCwd) return abs;
  if (!inside(realish(ctx.cwd), realish(abs))) {
    throw new PathOutsideWorkdirError(
      `path '${p}' is outside the working directory ${ctx.cwd} (set files.allow_outside_cwd: true in config.yaml to allow)`,
    );
  }
  return abs;
}
