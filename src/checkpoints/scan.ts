// Walks a task directory and makes its git tree: unchanged files (by status) come from the scan cache, changed ones
// are read through descriptors that cannot leave the directory. Links are kept as links, never followed. Worker-only.
import { closeSync, fstatSync, lstatSync, readdirSync, type Stats } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ExcludeRules } from '../config/checkpoint-exclude.js';
import {
  ChangedWhileReading,
  encodeTree,
  objectId,
  type ObjectStore,
  type Oid,
  type NewTreeEntry,
  type TreeMode,
} from './git-objects.js';
import type { CacheEntry, ScanEntries } from './scan-cache.js';
import { at, closeDir, openDirAt, openFileAt, openRoot, readlinkAt, type Dir } from '../fs/secure-fs.js';

export interface ScanLimits {
  /** Files larger than this are left out (and named in the checkpoint). */
  maxFileBytes: number;
  /** A directory with more files and directories than this is not checkpointed at all. */
  maxFiles: number;
}

export interface ScanOptions extends ScanLimits {
  /** The task directory: a real path (no link in it). */
  root: string;
  rules: ExcludeRules;
  /** Paths (relative to the root) the task's view hides from every tool (task-view.ts): never in a checkpoint. */
  hidden?: (rel: string) => boolean;
  objects: ObjectStore;
  /** False: compute ids only, store nothing (a dry run). */
  write: boolean;
  /** What the last scan of this directory found. */
  cache: ScanEntries;
  /** Fill `flat` (a rollback and a listing need it; a checkpoint alone does not). */
  flat?: boolean;
  /** Tree ids known to be stored (see KnownObjects): not looked for again. */
  known?: KnownObjects;
  /** The trees the last storing scan of this directory made (its ScanResult's `trees`), with the same `cache`. */
  trees?: DirTrees;
  signal?: AbortSignal;
}

/**
 * Object ids this process stored or found recently. Trusted for ten minutes only: pruning removes unreferenced
 * objects after an hour at the earliest, and a looked-for object is freshened (git-objects.ts), so a tree known
 * here is never one pruning is about to take.
 */
export class KnownObjects {
  private readonly seen = new Map<Oid, number>();
  has(oid: Oid): boolean {
    const t = this.seen.get(oid);
    return t !== undefined && Date.now() - t < 10 * 60_000;
  }
  add(oid: Oid): void {
    if (this.seen.size > 200_000) this.seen.clear();
    this.seen.set(oid, Date.now());
  }
  clear(): void {
    this.seen.clear();
  }
}

/** One entry of a checkpoint's tree, by path. */
export interface FlatEntry {
  mode: TreeMode;
  oid: Oid;
  /** Permission bits, when the mode does not say them (see `defaultPerm`). */
  perm?: number;
}

export interface ScanResult {
  tree: Oid;
  files: number;
  bytes: number;
  /** Permission bits that the tree's modes do not carry, by path. */
  perms: Map<string, number>;
  /** With `flat`: every entry (directories included), by path as latin1 text of its bytes. */
  flat: Map<string, FlatEntry>;
  oversize: string[];
  oversizeCount: number;
  unreadable: number;
  special: number;
  /** What the next scan may reuse. */
  cache: ScanEntries;
  /** The cache differs from the one given. */
  cacheChanged: boolean;
  /** Directories whose tree was the last scan's, reused without encoding it again. */
  reusedTrees: number;
  /** Each directory's tree, by path (a storing scan only): what the next scan, given `cache`, may reuse. */
  trees?: DirTrees;
}

/**
 * A directory's tree and its number of entries, by path. The next scan reuses a tree without encoding and hashing
 * it again when the directory holds as many entries, each found unchanged in the scan cache (and so with the same
 * name, mode and object), its subdirectories the same, and the tree still known to be stored.
 */
export type DirTrees = Map<string, { oid: Oid; count: number }>;

/** More entries than checkpoints.max_files. */
export class TooManyFiles extends Error {}

/** What git's modes imply: 644 for a file, 755 for an executable one or a directory. Others are recorded. */
export function defaultPerm(mode: TreeMode): number {
  return mode === '100644' ? 0o644 : 0o755;
}

/** A file changed this recently may change again within the same timestamp: it is not trusted from the cache. */
const RACY_MS = 2_000;
const YIELD_MS = 20;
const MAX_NAMED_OVERSIZE = 20;

const sameStatus = (c: CacheEntry | undefined, s: Stats): c is CacheEntry =>
  c !== undefined &&
  c.ino === s.ino &&
  c.dev === s.dev &&
  c.size === s.size &&
  c.mtimeMs === s.mtimeMs &&
  c.ctimeMs === s.ctimeMs &&
  c.mode === s.mode;

const entryOf = (s: Stats, oid: Oid): CacheEntry => ({
  dev: s.dev,
  ino: s.ino,
  size: s.size,
  mtimeMs: s.mtimeMs,
  ctimeMs: s.ctimeMs,
  mode: s.mode,
  oid,
});

const SLASH = Buffer.from('/');
/** What opening a directory that was replaced since it was listed fails with. */
const REPLACED = new Set(['ELOOP', 'ENOTDIR', 'ENOENT']);

/**
 * A directory of the walk: opened from its parent's descriptor (never through a link) and listed through that
 * descriptor, so the names and everything read come from the directory inside the task; its entries' status is
 * taken by path (fast), which decides only whether the scan cache may be used.
 */
interface Level {
  dir: Dir;
  /** Its path as text, or undefined when a name on the way is not valid UTF-8 (then `levelPath` builds it). */
  text: string | undefined;
  /** The directory it is in (none for the task directory), and its name there. */
  parent?: Level;
  name: Buffer;
  rel: string;
}

/** A level's path as bytes: only for names that are not valid UTF-8, so built only when asked for. */
function levelPath(level: Level): Buffer {
  return level.parent ? Buffer.concat([levelPath(level.parent), SLASH, level.name]) : level.name;
}

function childPath(level: Level, n: { text: string; bytes?: Buffer }): Buffer {
  return Buffer.concat([levelPath(level), SLASH, n.bytes ?? Buffer.from(n.text)]);
}

const ASCII = /^[\x20-\x7e]*$/;

/** A directory's names as text, and as raw bytes where a name is not valid UTF-8 (or holds U+FFFD). */
function names(path: string | Buffer): { text: string; bytes?: Buffer }[] {
  const listed = readdirSync(path);
  if (!listed.some((n) => n.includes('\uFFFD'))) return listed.map((text) => ({ text }));
  return readdirSync(path, { encoding: 'buffer' }).map((bytes) => {
    const text = bytes.toString('utf8');
    return Buffer.from(text, 'utf8').equals(bytes) && !text.includes('\uFFFD') ? { text } : { text, bytes };
  });
}

export async function scanTree(o: ScanOptions): Promise<ScanResult> {
  const started = Date.now();
  const r: ScanResult = {
    tree: '',
    files: 0,
    bytes: 0,
    perms: new Map(),
    flat: new Map(),
    oversize: [],
    oversizeCount: 0,
    unreadable: 0,
    special: 0,
    cache: new Map(),
    cacheChanged: false,
    reusedTrees: 0,
  };
  let seen = 0;
  let lastYield = performance.now();
  const pause = async (): Promise<void> => {
    // Heartbeats and other calls of this worker go on while a large directory is walked.
    await nextTurn();
    o.signal?.throwIfAborted();
    lastYield = performance.now();
  };
  /** Keeps what was found for the next scan; false when that differs from what the cache held. */
  const keep = (rel: string, s: Stats, oid: Oid, cached: CacheEntry | undefined): boolean => {
    if (started - s.mtimeMs < RACY_MS || started - s.ctimeMs < RACY_MS) {
      r.cacheChanged = true;
      return false;
    }
    if (cached !== undefined && cached.oid === oid && sameStatus(cached, s)) {
      r.cache.set(rel, cached);
      return true;
    }
    r.cacheChanged = true;
    r.cache.set(rel, entryOf(s, oid));
    return false;
  };
  const trees: DirTrees = new Map();
  const blob = (body: Buffer): Oid => (o.write ? o.objects.put('blob', body) : objectId('blob', body));
  const tree = (body: Buffer): Oid => {
    const oid = objectId('tree', body);
    if (o.write && !o.known?.has(oid)) {
      o.objects.put('tree', body);
      o.known?.add(oid);
    }
    return oid;
  };

  /** A regular file's object, read now through its directory's descriptor; '' when it grew over the limit. */
  const readFile = async (dir: Dir, name: Buffer): Promise<{ oid: Oid; st: Stats } | undefined> => {
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const opened = openFileAt(dir, name);
      if (!opened) return undefined;
      try {
        if (opened.stat.size > o.maxFileBytes) return { oid: '', st: opened.stat };
        const oid = await o.objects.putFile(opened.fd, opened.stat.size, o.write);
        return { oid, st: opened.stat };
      } catch (err) {
        if (!(err instanceof ChangedWhileReading)) return undefined;
      } finally {
        closeSync(opened.fd);
      }
    }
    return undefined; // changed while read, twice: left out of this checkpoint
  };

  /**
   * A directory's tree, and whether it is the one the last scan made: every entry found unchanged in the scan cache
   * and every subdirectory unchanged. Then its tree is not encoded and hashed again (see DirTrees).
   */
  const walk = async (level: Level): Promise<{ oid: Oid; same: boolean }> => {
    const entries: NewTreeEntry[] = [];
    const dir = level.dir;
    let listed: { text: string; bytes?: Buffer }[];
    try {
      listed = names(at(dir));
    } catch {
      listed = [];
    }
    let same = true;
    for (const n of listed) {
      seen += 1;
      if (seen > o.maxFiles) throw new TooManyFiles();
      if ((seen & 255) === 0 && performance.now() - lastYield > YIELD_MS) await pause();
      const nameKey = n.bytes
        ? n.bytes.toString('latin1')
        : ASCII.test(n.text)
          ? n.text
          : Buffer.from(n.text).toString('latin1');
      const rel = level.rel === '' ? nameKey : `${level.rel}/${nameKey}`;
      const text = n.bytes === undefined && level.text !== undefined ? `${level.text}/${n.text}` : undefined;
      // Status by path is fast; it decides only whether the cache may be used (same device and inode: the same
      // file). Names, contents and link targets come only through descriptors, which a swapped link cannot redirect.
      let st: Stats | undefined;
      try {
        st = lstatSync(text ?? childPath(level, n), { throwIfNoEntry: false });
      } catch {
        st = undefined; // a path longer than the system takes, say: left out and counted, the rest goes on
        r.unreadable += 1;
      }
      if (!st) {
        same = false;
        continue;
      }
      if (st.isDirectory()) {
        if (o.rules.excluded(rel, true) || o.hidden?.(rel)) continue;
        const name = n.bytes ?? Buffer.from(n.text);
        let sub: Dir;
        try {
          sub = openDirAt(dir, name);
        } catch (err) {
          same = false;
          // Replaced meanwhile (by a link, say): not entered, not recorded. Anything else (out of descriptors in a
          // very deep tree, say) leaves the directory out, counted.
          if (!REPLACED.has((err as NodeJS.ErrnoException).code ?? '')) r.unreadable += 1;
          continue;
        }
        let got: { oid: Oid; same: boolean };
        let perm: number;
        try {
          perm = fstatSync(sub.fd).mode & 0o777;
          got = await walk({ dir: sub, text, parent: level, name, rel });
        } finally {
          closeDir(sub);
        }
        if (!got.same) same = false;
        entries.push({ key: nameKey, mode: '40000', oid: got.oid });
        if (o.flat)
          r.flat.set(rel, perm === 0o755 ? { mode: '40000', oid: got.oid } : { mode: '40000', oid: got.oid, perm });
        if (perm !== 0o755) r.perms.set(rel, perm);
        continue;
      }
      if (o.rules.excluded(rel, false) || o.hidden?.(rel)) continue;
      const cached = o.cache.get(rel);
      const hit = sameStatus(cached, st);
      if (st.isSymbolicLink()) {
        let oid: Oid;
        if (hit) oid = cached.oid;
        else {
          same = false;
          try {
            oid = blob(readlinkAt(dir, n.bytes ?? Buffer.from(n.text)));
          } catch {
            r.unreadable += 1;
            continue;
          }
        }
        if (!keep(rel, st, oid, cached)) same = false;
        entries.push({ key: nameKey, mode: '120000', oid });
        if (o.flat) r.flat.set(rel, { mode: '120000', oid });
        r.files += 1;
        continue;
      }
      if (!st.isFile()) {
        same = false;
        r.special += 1; // FIFOs, sockets, devices: not content
        continue;
      }
      if (st.size > o.maxFileBytes) {
        same = false;
        noteOversize(r, rel);
        continue;
      }
      let oid: Oid;
      let fst: Stats = st;
      if (hit) oid = cached.oid;
      else {
        same = false;
        const found = await readFile(dir, n.bytes ?? Buffer.from(n.text));
        if (!found) {
          r.unreadable += 1;
          continue;
        }
        if (found.oid === '') {
          noteOversize(r, rel);
          continue;
        }
        oid = found.oid;
        fst = found.st;
      }
      const perm = fst.mode & 0o777;
      const mode: TreeMode = perm & 0o100 ? '100755' : '100644';
      if (!keep(rel, fst, oid, cached)) same = false;
      entries.push({ key: nameKey, mode, oid });
      if (perm === defaultPerm(mode)) {
        if (o.flat) r.flat.set(rel, { mode, oid });
      } else {
        if (o.flat) r.flat.set(rel, { mode, oid, perm });
        r.perms.set(rel, perm);
      }
      r.files += 1;
      r.bytes += fst.size;
    }
    const before = o.trees?.get(level.rel);
    if (same && before !== undefined && before.count === entries.length && o.known?.has(before.oid)) {
      trees.set(level.rel, before);
      r.reusedTrees += 1;
      return { oid: before.oid, same: true };
    }
    const oid = tree(encodeTree(entries));
    trees.set(level.rel, { oid, count: entries.length });
    return { oid, same: before !== undefined && before.oid === oid && same };
  };

  const root = openRoot(o.root);
  try {
    r.tree = (await walk({ dir: root, text: o.root, name: Buffer.from(o.root), rel: '' })).oid;
  } finally {
    closeDir(root);
  }
  if (r.cache.size !== o.cache.size) r.cacheChanged = true;
  if (o.write) r.trees = trees; // a dry scan's trees were never stored: not for a scan that stores to reuse
  return r;
}

function noteOversize(r: ScanResult, rel: string): void {
  r.oversizeCount += 1;
  if (r.oversize.length < MAX_NAMED_OVERSIZE) r.oversize.push(Buffer.from(rel, 'latin1').toString('utf8'));
}

/** The permission exceptions as a blob: `OCTAL SP PATH NUL` per entry, PATH as its raw bytes. */
export function encodePerms(perms: Map<string, number>): Buffer {
  const parts: Buffer[] = [];
  for (const [p, perm] of [...perms].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    parts.push(Buffer.from(`${perm.toString(8)} `), Buffer.from(p, 'latin1'), Buffer.from([0]));
  return Buffer.concat(parts);
}

export function decodePerms(body: Buffer): Map<string, number> {
  const out = new Map<string, number>();
  let i = 0;
  while (i < body.length) {
    const space = body.indexOf(0x20, i);
    const nul = body.indexOf(0, space);
    if (space < 0 || nul < 0) break;
    out.set(body.toString('latin1', space + 1, nul), parseInt(body.toString('latin1', i, space), 8));
    i = nul + 1;
  }
  return out;
}
