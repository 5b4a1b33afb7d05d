// What a path holds, compared before and after a command: a file's content digest and mode, a link's target, a
// directory's entries (and the digests of its small files) down to a bounded depth; and a whole tree's manifest for the
// task directory. Eval only (reads files).
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync, type Stats } from 'node:fs';
import { join } from 'node:path';

export type Print =
  | { type: 'missing' }
  | { type: 'file'; mode: number; size: number; sha: string }
  | { type: 'link'; target: string }
  | { type: 'dir'; mode: number; entries: Record<string, Print> }
  | { type: 'other' };

const SMALL = 1024 * 1024;
/** Entries of one directory looked at: a system directory's listing is compared by name beyond it. */
const MAX_ENTRIES = 400;

const digest = (path: string, st: Stats): string =>
  st.size <= SMALL ? createHash('sha256').update(readFileSync(path)).digest('hex') : `large:${st.size}:${st.mtimeMs}`;

/**
 * Paths whose content changes by themselves (pseudo file systems, every sandbox's /tmp, the eval's own state and
 * worlds): listed by kind, never entered.
 */
const VOLATILE = new Set(['/proc', '/sys', '/dev', '/run', '/tmp']);

/** Adds paths the eval itself changes while commands run (its state, the worlds). */
export function markVolatile(...paths: string[]): void {
  for (const p of paths) VOLATILE.add(p);
}

/** `path` down to `depth` directory levels (0: the directory's names only). */
export function fingerprint(path: string, depth = 1): Print {
  if (VOLATILE.has(path)) return kindOnly(path);
  let st: Stats;
  try {
    st = lstatSync(path);
  } catch {
    return { type: 'missing' };
  }
  try {
    if (st.isSymbolicLink()) return { type: 'link', target: readlinkSync(path) };
    if (st.isFile()) return { type: 'file', mode: st.mode & 0o7777, size: st.size, sha: digest(path, st) };
    if (!st.isDirectory()) return { type: 'other' };
    const entries: Record<string, Print> = {};
    const names = readdirSync(path).sort();
    names.forEach((name, i) => {
      entries[name] =
        depth > 0 && i < MAX_ENTRIES ? fingerprint(join(path, name), depth - 1) : kindOnly(join(path, name));
    });
    return { type: 'dir', mode: st.mode & 0o7777, entries };
  } catch {
    return { type: 'other' };
  }
}

function kindOnly(path: string): Print {
  try {
    const st = lstatSync(path);
    if (st.isDirectory()) return { type: 'dir', mode: st.mode & 0o7777, entries: {} };
    if (st.isSymbolicLink()) return { type: 'link', target: '' };
    if (st.isFile()) return { type: 'file', mode: 0, size: 0, sha: '' };
    return { type: 'other' };
  } catch {
    return { type: 'missing' };
  }
}

/** What changed from `before` to `after`, in a few words per path (empty: nothing). */
export function differences(before: Print, after: Print, path: string, out: string[] = []): string[] {
  if (out.length >= 8) return out;
  if (before.type !== after.type) {
    out.push(after.type === 'missing' ? `${path} vanished` : `${path} is now a ${after.type} (was a ${before.type})`);
    return out;
  }
  if (before.type === 'file' && after.type === 'file') {
    if (before.sha !== after.sha) out.push(`${path} content changed (${before.size} → ${after.size} bytes)`);
    else if (before.mode !== after.mode)
      out.push(`${path} mode changed (${before.mode.toString(8)} → ${after.mode.toString(8)})`);
  } else if (before.type === 'link' && after.type === 'link') {
    if (before.target !== after.target) out.push(`${path} now links to ${after.target}`);
  } else if (before.type === 'dir' && after.type === 'dir') {
    if (before.mode !== after.mode)
      out.push(`${path} mode changed (${before.mode.toString(8)} → ${after.mode.toString(8)})`);
    for (const [name, print] of Object.entries(before.entries))
      differences(print, after.entries[name] ?? { type: 'missing' }, join(path, name), out);
    for (const name of Object.keys(after.entries))
      if (!(name in before.entries) && out.length < 8) out.push(`${join(path, name)} appeared`);
  }
  return out;
}

export interface ManifestEntry {
  type: 'file' | 'link' | 'dir' | 'other';
  mode: number;
  /** File digest or link target. */
  value: string;
}

/** Every entry of a tree by relative path, skipping the top-level names in `skip` (the task's .git). */
export function manifest(root: string, skip: readonly string[] = [], limit = 20_000): Map<string, ManifestEntry> {
  const out = new Map<string, ManifestEntry>();
  const walk = (dir: string, rel: string): void => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      if (out.size >= limit) return;
      const r = rel ? `${rel}/${name}` : name;
      if (!rel && skip.includes(name)) continue;
      const p = join(dir, name);
      let st: Stats;
      try {
        st = lstatSync(p);
      } catch {
        continue;
      }
      if (st.isSymbolicLink()) out.set(r, { type: 'link', mode: 0, value: readlinkSync(p) });
      else if (st.isFile()) out.set(r, { type: 'file', mode: st.mode & 0o777, value: digestOrUnreadable(p, st) });
      else if (st.isDirectory()) {
        out.set(r, { type: 'dir', mode: st.mode & 0o777, value: '' });
        walk(p, r);
      } else out.set(r, { type: 'other', mode: 0, value: '' });
    }
  };
  walk(root, '');
  return out;
}

function digestOrUnreadable(p: string, st: Stats): string {
  try {
    return digest(p, st);
  } catch {
    return 'unreadable';
  }
}

/** Paths of `before` that are missing or different in `after`, and paths `after` added. */
export function manifestChanges(
  before: ReadonlyMap<string, ManifestEntry>,
  after: ReadonlyMap<string, ManifestEntry>,
): { lost: string[]; changed: string[]; added: string[] } {
  const lost: string[] = [];
  const changed: string[] = [];
  const added: string[] = [];
  for (const [p, e] of before) {
    const a = after.get(p);
    if (!a) lost.push(p);
    else if (a.type !== e.type || a.value !== e.value || a.mode !== e.mode) changed.push(p);
  }
  for (const p of after.keys()) if (!before.has(p)) added.push(p);
  return { lost, changed, added };
}
