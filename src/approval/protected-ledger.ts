// The changes to protected files a person approved (or policy let through) for a file tool, by path and digest of
// the content: when such a file appears while a task's processes run, the local sandbox keeps it instead of taking
// it for a command's creation (protected-guard.ts). Recorded by the gate just before the approved call runs, so a
// denied change is never here. Worker-only (in-process state, resolves paths).
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

/** Path → digests of approved contents, oldest first (bounded: a long-lived worker forgets the oldest). */
const approved = new Map<string, Set<string>>();
const MAX_PATHS = 1000;

export const contentDigest = (content: string | Buffer): string => createHash('sha256').update(content).digest('hex');

/** The path with its existing part resolved (links, `..`): the sandbox's finder names the same file the same way. */
export function canonicalPath(path: string): string {
  const abs = resolve(path);
  const rest: string[] = [];
  for (let d = abs; ; d = dirname(d)) {
    try {
      return join(realpathSync(d), ...rest);
    } catch {
      if (dirname(d) === d) return abs;
      rest.unshift(basename(d));
    }
  }
}

/** A file tool is about to write `content` to `path`, approved. */
export function noteApprovedWrite(path: string, content: string): void {
  const key = canonicalPath(path);
  const set = approved.get(key) ?? new Set<string>();
  approved.delete(key);
  set.add(contentDigest(content));
  approved.set(key, set);
  while (approved.size > MAX_PATHS) approved.delete(approved.keys().next().value!);
}

/** Whether `content` at `path` is a change a person approved for a file tool. */
export const wasApproved = (path: string, digest: string): boolean =>
  approved.get(canonicalPath(path))?.has(digest) === true;
