// Keeps the store bounded: each run keeps its newest checkpoints (checkpoints.keep.count), none is kept past
// checkpoints.keep.age, and objects no kept checkpoint or scan cache names are removed. Worker-only.
import { closeSync, existsSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CheckpointSettings } from '../config/config.js';
import type { Logger } from '../logging/logger.js';
import { EMPTY_TREE, type Oid } from './git-objects.js';
import { cachedObjects, dropScanCache } from './scan-cache.js';
import { forgetKnownObjects } from './snapshot.js';
import type { Checkpoint, CheckpointStore } from './store.js';

/**
 * An object nothing names is removed only once it is this old. Objects a checkpoint is being made of are new, or
 * were freshened when found already stored (git-objects.ts), so a checkpoint taken while pruning runs keeps them.
 */
const GRACE_MS = 60 * 60_000;
/** Pruning runs after a checkpoint at most this often per store. */
const EVERY_MS = 60 * 60_000;

export interface PruneReport {
  checkpoints: number;
  objects: number;
  bytes: number;
}

/** The checkpoints pruning removes: past the age, or beyond the newest `count` of their run. */
export function expired(all: Checkpoint[], keep: CheckpointSettings['keep'], now = Date.now()): Checkpoint[] {
  const byRun = new Map<string, Checkpoint[]>();
  for (const c of all) byRun.set(c.meta.workflowId, [...(byRun.get(c.meta.workflowId) ?? []), c]);
  const out: Checkpoint[] = [];
  for (const list of byRun.values()) {
    const newestFirst = [...list].sort((a, b) => b.meta.at - a.meta.at);
    newestFirst.forEach((c, i) => {
      if (i >= keep.count || now - c.meta.at > keep.age * 1000) out.push(c);
    });
  }
  return out;
}

/** Yields to the event loop every 20 ms: a worker prunes beside its running calls and their heartbeats. */
function pacer(): () => Promise<void> {
  let last = performance.now();
  return async () => {
    if (performance.now() - last < 20) return;
    await new Promise((r) => setImmediate(r));
    last = performance.now();
  };
}

export async function prune(
  store: CheckpointStore,
  settings: CheckpointSettings,
  now = Date.now(),
): Promise<PruneReport> {
  const pause = pacer();
  const report: PruneReport = { checkpoints: 0, objects: 0, bytes: 0 };
  const all = store.all();
  const gone = new Set(expired(all, settings.keep, now).map((c) => c.ref));
  for (const ref of gone) store.deleteRef(ref);
  report.checkpoints = gone.size;

  const marked = new Set<Oid>([EMPTY_TREE]);
  const markTree = async (root: Oid): Promise<void> => {
    const todo = [root];
    while (todo.length > 0) {
      const oid = todo.pop()!;
      if (marked.has(oid)) continue;
      marked.add(oid);
      await pause();
      for (const e of store.objects.readTree(oid)) {
        if (e.mode === '40000') todo.push(e.oid);
        else marked.add(e.oid);
      }
    }
  };
  for (const c of all) {
    if (gone.has(c.ref)) continue;
    marked.add(c.id);
    if (c.meta.perms) marked.add(c.meta.perms);
    try {
      await markTree(c.tree);
    } catch {
      // a damaged checkpoint keeps what can be read of it
    }
  }
  const scans = join(store.root, 'tether', 'scans');
  for (const name of list(scans)) {
    const path = join(scans, name);
    if (name.includes('.tmp-')) {
      if (olderThan(path, GRACE_MS, now)) rmSync(path, { force: true });
      continue;
    }
    if (olderThan(path, settings.keep.age * 1000, now) || !cwdExists(path)) {
      dropScanCache(path);
      continue;
    }
    for (const oid of cachedObjects(path)) marked.add(oid);
  }

  const objects = store.objects.dir;
  for (const sub of list(objects)) {
    const dir = join(objects, sub);
    if (!/^[0-9a-f]{2}$/.test(sub)) {
      if (sub.startsWith('tmp-') && olderThan(dir, GRACE_MS, now)) rmSync(dir, { force: true });
      continue;
    }
    for (const rest of list(dir)) {
      await pause();
      const path = join(dir, rest);
      if (marked.has(sub + rest)) continue;
      const s = stat(path);
      if (!s || now - s.mtimeMs < GRACE_MS) continue;
      rmSync(path, { force: true });
      report.objects += 1;
      report.bytes += s.size;
    }
  }
  forgetKnownObjects(store.root);
  return report;
}

function list(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function stat(path: string): { mtimeMs: number; size: number } | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

function olderThan(path: string, ms: number, now: number): boolean {
  const s = stat(path);
  return s !== undefined && now - s.mtimeMs > ms;
}

function cwdExists(cachePath: string): boolean {
  try {
    const cwd = (JSON.parse(readFileSync(cachePath, 'utf8')) as { cwd?: unknown }).cwd;
    return typeof cwd === 'string' && existsSync(cwd);
  } catch {
    return false;
  }
}

let running = false;

/**
 * Prunes in the background when the store was last pruned over an hour ago. One process at a time: a lock file
 * made exclusively (and taken over when its holder left it over an hour ago).
 */
export function pruneSoon(store: CheckpointStore, settings: CheckpointSettings, log: Logger): void {
  const marker = join(store.root, 'tether', 'last-prune');
  if (running || !olderThanOrMissing(marker, EVERY_MS)) return;
  running = true;
  setImmediate(() => void pruneLocked(store, settings, log, marker));
}

async function pruneLocked(
  store: CheckpointStore,
  settings: CheckpointSettings,
  log: Logger,
  marker: string,
): Promise<void> {
  const lock = join(store.root, 'tether', 'prune.lock');
  try {
    if (existsSync(lock) && olderThan(lock, GRACE_MS, Date.now())) rmSync(lock, { force: true });
    closeSync(openSync(lock, 'wx'));
  } catch {
    running = false;
    return; // another process prunes
  }
  try {
    const r = await prune(store, settings);
    writeFileSync(marker, `${Date.now()}\n`);
    if (r.checkpoints + r.objects > 0) log.info({ ...r }, 'checkpoints pruned');
  } catch (err) {
    log.warn({ err: (err as Error).message }, 'checkpoint pruning failed');
  } finally {
    rmSync(lock, { force: true });
    running = false;
  }
}

function olderThanOrMissing(path: string, ms: number): boolean {
  const s = stat(path);
  return s === undefined || Date.now() - s.mtimeMs > ms;
}
