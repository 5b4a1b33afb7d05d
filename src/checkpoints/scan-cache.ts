// What the last checkpoint of a task directory found, file by file (its status and object id): a file whose status
// is unchanged is not read again. Held in memory and in the store, so a restarted worker is fast too. Worker-only.
import { randomBytes } from 'node:crypto';
import { readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import type { Oid } from './git-objects.js';

/** A file's (or link's) status when it was read, and the object holding what was read. */
export interface CacheEntry {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  /** The whole st_mode: type and permission bits. */
  mode: number;
  oid: Oid;
}

/** Paths (their bytes read as latin1) to what was found there. */
export type ScanEntries = Map<string, CacheEntry>;

type Row = [string, number, number, number, number, number, number, string];

interface Held {
  entries: ScanEntries;
  /** The cache file as this process last wrote or read it: another process's write or a prune changes it. */
  file: { ino: number; mtimeMs: number; size: number } | undefined;
}

const held = new Map<string, Held>();
const MAX_HELD = 64;

function fileStatus(path: string): Held['file'] {
  try {
    const s = statSync(path);
    return { ino: s.ino, mtimeMs: s.mtimeMs, size: s.size };
  } catch {
    return undefined;
  }
}

const same = (a: Held['file'], b: Held['file']): boolean =>
  a !== undefined && b !== undefined && a.ino === b.ino && a.mtimeMs === b.mtimeMs && a.size === b.size;

/** The entries of the cache file at `path` (empty when there is none, or it cannot be read). */
export function loadScanCache(path: string): ScanEntries {
  const now = fileStatus(path);
  const mine = held.get(path);
  if (mine && same(mine.file, now)) return mine.entries;
  const entries: ScanEntries = new Map();
  if (now) {
    try {
      const rows = (JSON.parse(readFileSync(path, 'utf8')) as { entries: Row[] }).entries;
      for (const [p, dev, ino, size, mtimeMs, ctimeMs, mode, oid] of rows)
        entries.set(p, { dev, ino, size, mtimeMs, ctimeMs, mode, oid });
    } catch {
      entries.clear(); // unreadable: every file is read again, which is always correct
    }
  }
  remember(path, { entries, file: now });
  return entries;
}

function remember(path: string, h: Held): void {
  held.delete(path);
  if (held.size >= MAX_HELD) held.delete(held.keys().next().value ?? '');
  held.set(path, h);
}

/**
 * Writing 10,000 entries costs more than the scan that changed one of them, so a cache is written at most every
 * few seconds, the last version shortly after. Until then this process holds it; another (a restarted worker) only
 * reads again what changed since the file was written.
 */
const SAVE_EVERY_MS = 5_000;
const lastSaved = new Map<string, number>();
const pending = new Map<string, NodeJS.Timeout>();
/** The directory each cache describes (written into the file, for pruning). */
const cwds = new Map<string, string>();

function write(path: string, cwd: string, entries: ScanEntries): void {
  const rows: Row[] = [];
  for (const [p, e] of entries) rows.push([p, e.dev, e.ino, e.size, e.mtimeMs, e.ctimeMs, e.mode, e.oid]);
  const tmp = `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    writeFileSync(tmp, JSON.stringify({ cwd, savedAt: Date.now(), entries: rows }));
    renameSync(tmp, path);
  } catch {
    rmSync(tmp, { force: true }); // the store went away or is full: the cache is only a shortcut
    return;
  }
  lastSaved.set(path, Date.now());
  remember(path, { entries, file: fileStatus(path) });
}

/** Keeps `entries` as the directory's cache: held now, written to the store soon (see SAVE_EVERY_MS). */
export function saveScanCache(path: string, cwd: string, entries: ScanEntries): void {
  cwds.set(path, cwd);
  const file = held.get(path)?.file ?? fileStatus(path);
  remember(path, { entries, file });
  clearTimeout(pending.get(path));
  pending.delete(path);
  const wait = (lastSaved.get(path) ?? 0) + SAVE_EVERY_MS - Date.now();
  if (wait <= 0) return write(path, cwd, entries);
  const timer = setTimeout(() => {
    pending.delete(path);
    // Another process wrote it meanwhile, or a prune removed it: held entries are replaced by the file's then.
    if (held.get(path)?.entries === entries) write(path, cwd, entries);
  }, wait);
  timer.unref();
  pending.set(path, timer);
}

/** Writes every cache held but not yet written (a worker shutting down; tests). */
export function flushScanCaches(): void {
  for (const [path, timer] of pending) {
    clearTimeout(timer);
    const h = held.get(path);
    if (h) write(path, cwds.get(path) ?? '', h.entries);
  }
  pending.clear();
}

/** Forgets a cache (pruning removed it). */
export function dropScanCache(path: string): void {
  held.delete(path);
  clearTimeout(pending.get(path));
  pending.delete(path);
  rmSync(path, { force: true });
}

/** The object ids a cache file names (pruning keeps them). */
export function cachedObjects(path: string): Oid[] {
  return [...loadScanCache(path).values()].map((e) => e.oid);
}
