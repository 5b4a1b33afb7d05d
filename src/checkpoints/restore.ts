// Puts a task directory back as a checkpoint holds it: the difference between what is there now (a scan) and the
// checkpoint, applied through descriptors that no link or race can lead out of the directory. Worker-only.
import type { ObjectStore } from './git-objects.js';
import { defaultPerm, type FlatEntry } from './scan.js';
import {
  closeDir,
  lstatAt,
  mkdirAt,
  openDirAt,
  openRoot,
  rmdirAt,
  setDirMode,
  symlinkAt,
  unlinkAt,
  writeFileAt,
  type Dir,
} from '../fs/secure-fs.js';

export type Flat = Map<string, FlatEntry>;

/** One change of a rollback, by path (shown as UTF-8). */
export interface Change {
  path: string;
  /** restored: was missing; changed: content, link target or mode differed; removed: added after the checkpoint. */
  action: 'restored' | 'changed' | 'removed' | 'kept';
  /** For `kept`: why it was left as it is. */
  why?: string;
}

interface Plan {
  removeFiles: string[];
  removeDirs: string[];
  makeDirs: string[];
  write: string[];
  dirModes: string[];
}

const isDir = (e: FlatEntry | undefined): boolean => e?.mode === '40000';
const shown = (rel: string): string => Buffer.from(rel, 'latin1').toString('utf8');
const depth = (rel: string): number => rel.split('/').length;
const within = (rel: string, prefix: string | undefined): boolean =>
  prefix === undefined || rel === prefix || rel.startsWith(`${prefix}/`);

/** The steps from `now` to `target`, limited to `prefix` (a path relative to the directory) when given. */
export function plan(now: Flat, target: Flat, prefix?: string): Plan {
  const p: Plan = { removeFiles: [], removeDirs: [], makeDirs: [], write: [], dirModes: [] };
  for (const [rel, n] of now) {
    if (!within(rel, prefix)) continue;
    const t = target.get(rel);
    if (isDir(n)) {
      if (!isDir(t)) p.removeDirs.push(rel);
    } else if (!t || isDir(t)) p.removeFiles.push(rel);
  }
  for (const [rel, t] of target) {
    if (!within(rel, prefix)) continue;
    const n = now.get(rel);
    if (isDir(t)) {
      if (!isDir(n)) p.makeDirs.push(rel);
      else if ((n!.perm ?? 0o755) !== (t.perm ?? 0o755)) p.dirModes.push(rel);
    } else if (!n || isDir(n) || n.oid !== t.oid || n.mode !== t.mode || n.perm !== t.perm) p.write.push(rel);
  }
  // One path restored needs its directories: those missing now are made (nothing else beside it is touched).
  if (prefix !== undefined)
    for (let cut = prefix.indexOf('/'); cut > 0; cut = prefix.indexOf('/', cut + 1)) {
      const up = prefix.slice(0, cut);
      if (isDir(target.get(up)) && !now.has(up)) p.makeDirs.push(up);
    }
  p.removeDirs.sort((a, b) => depth(b) - depth(a));
  p.makeDirs.sort((a, b) => depth(a) - depth(b));
  return p;
}

/** Whether the plan changes anything. */
export function planIsEmpty(p: Plan): boolean {
  return p.removeFiles.length + p.removeDirs.length + p.makeDirs.length + p.write.length + p.dirModes.length === 0;
}

/** Open directories of the task by path, each opened from its parent's descriptor; a bounded number stay open. */
class Dirs {
  private readonly open = new Map<string, Dir>();
  constructor(private readonly root: Dir) {}

  get(relDir: string): Dir {
    if (relDir === '') return this.root;
    const held = this.open.get(relDir);
    if (held) return held;
    const cut = relDir.lastIndexOf('/');
    const parent = this.get(cut < 0 ? '' : relDir.slice(0, cut));
    const dir = openDirAt(parent, Buffer.from(relDir.slice(cut + 1), 'latin1'));
    if (this.open.size >= 64) {
      const [oldest, d] = this.open.entries().next().value as [string, Dir];
      this.open.delete(oldest);
      closeDir(d);
    }
    this.open.set(relDir, dir);
    return dir;
  }

  /** `rel`'s directory and name. */
  parentOf(rel: string): { dir: Dir; name: Buffer } {
    const cut = rel.lastIndexOf('/');
    return { dir: this.get(cut < 0 ? '' : rel.slice(0, cut)), name: Buffer.from(rel.slice(cut + 1), 'latin1') };
  }

  forget(relDir: string): void {
    for (const [k, d] of this.open)
      if (k === relDir || k.startsWith(`${relDir}/`)) {
        this.open.delete(k);
        closeDir(d);
      }
  }

  close(): void {
    for (const d of this.open.values()) closeDir(d);
    this.open.clear();
  }
}

const reason = (err: unknown): string => (err as NodeJS.ErrnoException).code ?? (err as Error).message;

/** What a plan would do, without doing it (a dry run). */
export function describePlan(p: Plan, now: Flat): Change[] {
  return [
    ...p.removeFiles.map((rel): Change => ({ path: shown(rel), action: 'removed' })),
    ...p.removeDirs.map((rel): Change => ({ path: `${shown(rel)}/`, action: 'removed' })),
    ...p.makeDirs.map((rel): Change => ({ path: `${shown(rel)}/`, action: 'restored' })),
    ...p.write.map((rel): Change => ({
      path: shown(rel),
      action: now.has(rel) && !isDir(now.get(rel)) ? 'changed' : 'restored',
    })),
    ...p.dirModes.map((rel): Change => ({ path: `${shown(rel)}/`, action: 'changed' })),
  ];
}

/**
 * Applies `p` in `root` (a real path): removals deepest first, then directories, then files. A path the plan does
 * not know (not in the checkpoint taken just before: left out by exclude rules or the size cap, or unreadable) is
 * never overwritten or removed, since that could not be undone: it is reported as kept.
 */
export function applyPlan(p: Plan, root: string, now: Flat, target: Flat, objects: ObjectStore): Change[] {
  const changes: Change[] = [];
  const rootDir = openRoot(root);
  const dirs = new Dirs(rootDir);
  const keep = (rel: string, why: string, dir = false): void => {
    changes.push({ path: `${shown(rel)}${dir ? '/' : ''}`, action: 'kept', why });
  };
  /** Paths under a directory that could not be made or removed: skipped, it says why once. */
  const blocked = new Set<string>();
  const underBlocked = (rel: string): boolean => {
    for (let cut = rel.lastIndexOf('/'); cut > 0; cut = rel.lastIndexOf('/', cut - 1))
      if (blocked.has(rel.slice(0, cut))) return true;
    return false;
  };
  try {
    for (const rel of p.removeFiles) {
      if (underBlocked(rel)) continue;
      try {
        const { dir, name } = dirs.parentOf(rel);
        unlinkAt(dir, name);
        changes.push({ path: shown(rel), action: 'removed' });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') keep(rel, `could not remove it (${reason(err)})`);
      }
    }
    for (const rel of p.removeDirs) {
      try {
        dirs.forget(rel);
        const { dir, name } = dirs.parentOf(rel);
        rmdirAt(dir, name);
        changes.push({ path: `${shown(rel)}/`, action: 'removed' });
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') continue;
        blocked.add(rel);
        keep(
          rel,
          code === 'ENOTEMPTY' || code === 'EEXIST'
            ? 'it holds files checkpoints leave out (exclude rules, size cap)'
            : `could not remove it (${reason(err)})`,
          true,
        );
      }
    }
    for (const rel of p.makeDirs) {
      if (underBlocked(rel) || blocked.has(rel)) continue;
      const perm = target.get(rel)?.perm ?? 0o755;
      try {
        const { dir, name } = dirs.parentOf(rel);
        if (lstatAt(dir, name)) {
          const there = lstatAt(dir, name)!;
          if (!there.isDirectory()) {
            blocked.add(rel);
            keep(rel, 'something the checkpoints do not hold is in its place', true);
            continue;
          }
          setDirMode(dir, name, perm);
        } else mkdirAt(dir, name, perm);
        changes.push({ path: `${shown(rel)}/`, action: 'restored' });
      } catch (err) {
        blocked.add(rel);
        keep(rel, `could not make it (${reason(err)})`, true);
      }
    }
    for (const rel of p.write) {
      if (underBlocked(rel) || blocked.has(rel)) continue;
      const t = target.get(rel)!;
      const known = now.get(rel);
      try {
        const { dir, name } = dirs.parentOf(rel);
        const there = lstatAt(dir, name);
        if (there && (!known || isDir(known))) {
          keep(
            rel,
            'not in the checkpoint taken before this rollback (exclude rules, size cap, unreadable), so replacing it could not be undone',
          );
          continue;
        }
        const body = objects.read(t.oid).body;
        if (t.mode === '120000') symlinkAt(dir, name, body);
        else writeFileAt(dir, name, body, t.perm ?? defaultPerm(t.mode));
        changes.push({ path: shown(rel), action: known ? 'changed' : 'restored' });
      } catch (err) {
        keep(rel, `could not write it (${reason(err)})`);
      }
    }
    for (const rel of p.dirModes) {
      if (underBlocked(rel)) continue;
      try {
        const { dir, name } = dirs.parentOf(rel);
        setDirMode(dir, name, target.get(rel)?.perm ?? 0o755);
        changes.push({ path: `${shown(rel)}/`, action: 'changed' });
      } catch (err) {
        keep(rel, `could not set its mode (${reason(err)})`, true);
      }
    }
  } finally {
    dirs.close();
    closeDir(rootDir);
  }
  return changes;
}
