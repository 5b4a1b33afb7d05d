// The protected files of a task's projects (src/common/protected-paths.ts: CI definitions, agent instructions,
// editor tasks, .envrc, ...) as the local sandbox finds and holds them: which exist at the top of each project, and
// the bwrap arguments that make them read-only to commands. Worker-only (reads directories).
import { lstatSync, readdirSync, readlinkSync, realpathSync, type Stats } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ProtectedEntry } from '../../../common/protected-paths.js';

/** A protected path found on disk. */
export interface ProtectedFound {
  /** The project's top (the task directory, a writable path, a repository's work tree) it was found in. */
  top: string;
  /** Its path below the top, with the names as they are on disk (`Agents.md` for the entry AGENTS.md). */
  rel: string;
  /** The entry that covers it; for a link on the way to one (`.github` a link), the first entry below the link. */
  entry: ProtectedEntry;
  /** What is there: a link is never followed here (a mount on it would land on what it points to). */
  type: 'file' | 'dir' | 'link' | 'other';
  /** Device and inode: what "the same entry" means when it is looked at again. */
  id: string;
  /** A link's target text (so a link a command replaced can be put back exactly). */
  link?: string;
  /** The link is a directory on the way to the entry, not the entry itself. */
  onTheWay?: boolean;
}

interface Node {
  children: Map<string, Node>;
  entry?: ProtectedEntry;
}

/** The entries as a tree of lower-case names: one directory read per level finds every spelling of a name. */
function tree(entries: readonly ProtectedEntry[]): Node {
  const root: Node = { children: new Map() };
  for (const e of entries) {
    let node = root;
    for (const part of e.path.toLowerCase().split('/')) {
      let next = node.children.get(part);
      if (!next) node.children.set(part, (next = { children: new Map() }));
      node = next;
    }
    node.entry ??= e;
  }
  return root;
}

const trees = new WeakMap<readonly ProtectedEntry[], Node>();

function firstEntry(node: Node): ProtectedEntry | undefined {
  if (node.entry) return node.entry;
  for (const c of node.children.values()) {
    const e = firstEntry(c);
    if (e) return e;
  }
  return undefined;
}

function typeOf(st: Stats): ProtectedFound['type'] {
  return st.isSymbolicLink() ? 'link' : st.isDirectory() ? 'dir' : st.isFile() ? 'file' : 'other';
}

/** What one directory holds of the tree: its matches, and the directories to look in below it. */
interface Listed {
  /** The directory as it was listed: device, inode and change time (any entry made, removed or renamed moves it). */
  key: string;
  matches: Omit<ProtectedFound, 'top'>[];
  below: { path: string; rel: string; node: Node }[];
}

/**
 * Listings by directory (and tree), kept while the directory's change time stays: a look at an unchanged project costs
 * a status per directory, not a listing and a status per entry. An entry cannot be made, removed, renamed or replaced
 * without changing its directory's change time, which no program can set back. A directory changed in the last two
 * seconds is listed again every time: timestamps advance in clock ticks, so a change in the same tick as the
 * listing could leave the time as it was.
 */
const listings = new WeakMap<Node, Map<string, Listed>>();
const MAX_LISTINGS = 4096;
const SETTLED_NS = 2_000_000_000n;

function list(dir: string, rel: string, node: Node): Listed | undefined {
  const st = lstatSync(dir, { bigint: true, throwIfNoEntry: false });
  if (!st?.isDirectory()) return undefined; // missing, or not a directory: nothing protected below it
  const key = `${st.dev}:${st.ino}:${st.ctimeNs}:${st.mtimeNs}`;
  let cache = listings.get(node);
  if (!cache) listings.set(node, (cache = new Map()));
  const known = cache.get(dir);
  if (known?.key === key) return known;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return undefined;
  }
  const listed: Listed = { key, matches: [], below: [] };
  for (const name of names) {
    const child = node.children.get(name.toLowerCase());
    if (!child) continue;
    const path = join(dir, name);
    const e = lstatSync(path, { throwIfNoEntry: false });
    if (!e) continue;
    const at = rel ? `${rel}/${name}` : name;
    const match = (entry: ProtectedEntry, onTheWay?: true): void => {
      const link = e.isSymbolicLink() ? readlinkSync(path) : undefined;
      listed.matches.push({
        rel: at,
        entry,
        type: typeOf(e),
        id: `${e.dev}:${e.ino}`,
        ...(link ? { link } : {}),
        ...(onTheWay ? { onTheWay } : {}),
      });
    };
    if (child.entry) match(child.entry);
    else if (e.isSymbolicLink()) match(firstEntry(child)!, true);
    else if (e.isDirectory()) listed.below.push({ path, rel: at, node: child });
  }
  if (BigInt(Date.now()) * 1_000_000n - st.ctimeNs < SETTLED_NS) cache.delete(dir);
  else {
    if (cache.size >= MAX_LISTINGS) cache.clear();
    cache.set(dir, listed);
  }
  return listed;
}

function walk(top: string, dir: string, rel: string, node: Node, out: ProtectedFound[]): void {
  const listed = list(dir, rel, node);
  if (!listed) return;
  for (const m of listed.matches) out.push({ top, ...m });
  for (const b of listed.below) walk(top, b.path, b.rel, b.node, out);
}

/** Every protected path at each project top, links included but never followed (a few directory reads per top). */
export function findProtected(tops: readonly string[], entries: readonly ProtectedEntry[]): ProtectedFound[] {
  if (entries.length === 0) return [];
  let root = trees.get(entries);
  if (!root) trees.set(entries, (root = tree(entries)));
  const out: ProtectedFound[] = [];
  for (const top of tops) walk(top, top, '', root, out);
  return out;
}

const within = (path: string, dir: string): boolean =>
  path === dir || path.startsWith(dir.endsWith('/') ? dir : `${dir}/`);

/** The path a found entry is held read-only at (through a link, where the link points: bwrap's mount follows it). */
const heldAt = (f: ProtectedFound): string =>
  f.onTheWay ? join(f.top, f.rel, ...f.entry.path.split('/').slice(f.rel.split('/').length)) : join(f.top, f.rel);

/**
 * Every directory between the root (the task directory, a writable path) and a found entry, a nested repository's
 * top included (the entry itself is a mount point already): bound onto itself, so that no command can rename or
 * remove it to take the entry out from under its mount (`mv .github x`, then a new .github/workflows). A directory
 * holding a hidden path is left to the hiding, which pins it already and whose mounts a later bind would cover.
 */
export function pinArgs(
  found: readonly ProtectedFound[],
  roots: readonly string[],
  hidden: readonly string[],
): string[] {
  const pinned = new Set<string>();
  for (const f of found) {
    const path = join(f.top, f.rel);
    const root = roots.find((r) => within(f.top, r));
    if (!root || hidden.some((h) => within(path, h))) continue;
    for (let a = dirname(path); a !== root && within(a, root); a = dirname(a)) pinned.add(a);
  }
  const args: string[] = [];
  for (const a of [...pinned].sort((x, y) => x.length - y.length))
    if (!hidden.some((h) => within(h, a))) args.push('--bind', a, a);
  return args;
}

/**
 * Each found entry read-only (after the git protections: a protected directory holding a repository stays read-only
 * whole). One the sandbox hides stays hidden: a read-only bind would show it (`hiddenAt` is the view's own decision,
 * so a task directory inside a hidden one still has its files held). A link is held where it really points, and only
 * when that is inside a root (the task directory, a `writable` path) and not hidden: elsewhere it is read-only already,
 * and a link to a hidden secret must not become a way to show it. The link itself cannot be held by a mount; a command
 * that replaces it is undone afterwards (protected-guard.ts).
 */
export function readOnlyArgs(
  found: readonly ProtectedFound[],
  roots: readonly string[],
  hiddenAt: (path: string) => boolean,
): string[] {
  const args: string[] = [];
  const done = new Set<string>();
  const real = (p: string): string | undefined => {
    try {
      return realpathSync(p);
    } catch {
      return undefined; // a link to nothing: nothing to hold
    }
  };
  const realRoots = roots.map((r) => real(r) ?? r);
  for (const f of found) {
    let path: string | undefined = join(f.top, f.rel);
    if (hiddenAt(path)) continue;
    if (f.type === 'link' || f.onTheWay) {
      path = real(heldAt(f));
      if (!path || !realRoots.some((r) => within(path!, r)) || hiddenAt(path)) continue;
    }
    if (done.has(path)) continue;
    done.add(path);
    args.push('--ro-bind', path, path);
  }
  return args;
}

/** A found set as text that changes when any entry appears, goes or is replaced (sandboxView). */
export function protectedView(found: readonly ProtectedFound[]): string {
  return found.map((f) => `${f.top}/${f.rel}\u0001${f.id}\u0001${f.link ?? ''}`).join('\u0000');
}
