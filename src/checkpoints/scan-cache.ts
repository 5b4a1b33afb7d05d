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

/** Replaces the cache file (written whole, then renamed into place). */
export function saveScanCache(path: string, cwd: string, entries: ScanEntries): void {
  const rows: Row[] = [];
  for (const [p, e] of entries) rows.push([p, e.dev, e.ino, e.size, e.mtimeMs, e.ctimeMs, e.mode, e.oid]);
  const tmp = `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  writeFileSync(tmp, JSON.stringify({ cwd, savedAt: Date.now(), entries: rows }));
  renameSync(tmp, path);
  remember(path, { entries, file: fileStatus(path) });
}

/** Forgets a cache (pruning removed it). */
export function dropScanCache(path: string): void {
  held.delete(path);
  rmSync(path, { force: true });
}

/** The object ids a cache file names (pruning keeps them). */
export function cachedObjects(path: string): Oid[] {
  return [...loadScanCache(path).values()].map((e) => e.oid);
}
