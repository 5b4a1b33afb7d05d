// Takes a checkpoint: scans the task directory into the store, records what it preceded, and names it with a
// ref of its run. Worker-only.
import { realpathSync, statSync } from 'node:fs';
import type { CheckpointSettings } from '../config/config.js';
import { ExcludeRules } from '../config/checkpoint-exclude.js';
import { currentTaskView } from '../environments/current.js';
import type { CheckpointMeta } from './meta.js';
import { loadScanCache, saveScanCache, type ScanEntries } from './scan-cache.js';
import { encodePerms, KnownObjects, scanTree, TooManyFiles, type DirTrees, type ScanResult } from './scan.js';
import type { Checkpoint, CheckpointStore } from './store.js';

/** What the checkpoint is taken before (the rest of its metadata comes from the scan). */
export type Occasion = Omit<CheckpointMeta, 'v' | 'cwd' | 'files' | 'bytes' | 'perms' | 'skipped' | 'at'>;

/** The task directory as a real path, or a one-line reason why it cannot be checkpointed. */
export function taskDirectory(cwd: string): string | { problem: string } {
  try {
    const real = realpathSync(cwd);
    if (!statSync(real).isDirectory()) return { problem: `${cwd} is not a directory` };
    return real;
  } catch (err) {
    return { problem: `${cwd} cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})` };
  }
}

/** Trees this process stored, per store. */
const known = new Map<string, KnownObjects>();

/** Forgets what this process knew of a store's objects (after it pruned them). */
export function forgetKnownObjects(storeRoot: string): void {
  known.get(storeRoot)?.clear();
}

/** The trees of the scan that left each cache as it is (a cache read again from the store has none). */
const treesOf = new WeakMap<ScanEntries, DirTrees>();

/**
 * What the task's view hides under `root` (TETHER_HOME and credentials in a task directory that holds the home), as
 * a test on paths relative to it; undefined when nothing there is hidden.
 */
function hiddenBelow(root: string): ((rel: string) => boolean) | undefined {
  const view = currentTaskView().forTask(root).below(root);
  if (view.clear) return undefined;
  return (rel) => {
    const sight = view.sight(`${root === '/' ? '' : root}/${rel}`);
    return sight !== undefined && 'hidden' in sight;
  };
}

/** Scans `root` (a real path) with the settings' rules and limits; `write` false stores nothing. */
export async function scanDirectory(
  store: CheckpointStore,
  settings: CheckpointSettings,
  root: string,
  write: boolean,
  o: { signal?: AbortSignal; flat?: boolean } = {},
): Promise<ScanResult> {
  if (store.ensure()) forgetKnownObjects(store.root);
  const cachePath = store.scanCachePath(root);
  const cache = loadScanCache(cachePath);
  const result = await scanTree({
    root,
    rules: new ExcludeRules(settings.exclude),
    hidden: hiddenBelow(root),
    objects: store.objects,
    write,
    cache,
    trees: treesOf.get(cache),
    maxFileBytes: settings.max_file_bytes,
    maxFiles: settings.max_files,
    known: known.get(store.root) ?? known.set(store.root, new KnownObjects()).get(store.root),
    signal: o.signal,
    flat: o.flat,
  });
  // A dry scan's cache is as true as a stored one's, but names objects that were never stored: not kept.
  if (write && result.cacheChanged) saveScanCache(cachePath, root, result.cache);
  if (result.trees) treesOf.set(result.cacheChanged ? result.cache : cache, result.trees);
  return result;
}

export type TakeResult = { checkpoint: Checkpoint; scan: ScanResult } | { skipped: string };

/**
 * Directories found too large, until when: not walked again every turn (up to max_files entries each time) only to
 * be refused again. Ten minutes, so one cleaned up or excluded gets its checkpoints back soon.
 */
const tooLarge = new Map<string, number>();
const TOO_LARGE_MS = 10 * 60_000;

/** Takes a checkpoint of `cwd`; `refName` names it among its run's (the turn, or the rollback's time). */
export async function takeCheckpoint(
  store: CheckpointStore,
  settings: CheckpointSettings,
  cwd: string,
  occasion: Occasion,
  refName: string,
  o: { signal?: AbortSignal; flat?: boolean } = {},
): Promise<TakeResult> {
  const root = taskDirectory(cwd);
  if (typeof root !== 'string') return { skipped: root.problem };
  const large = `${root}\n${settings.max_files}\n${settings.exclude.join('\n')}`;
  const tooMany = `${root} holds more than ${settings.max_files} files and directories (checkpoints.max_files); exclude some with checkpoints.exclude, or raise it`;
  if ((tooLarge.get(large) ?? 0) > Date.now()) return { skipped: tooMany };
  let scan: ScanResult;
  try {
    scan = await scanDirectory(store, settings, root, true, o);
  } catch (err) {
    if (!(err instanceof TooManyFiles)) throw err;
    tooLarge.set(large, Date.now() + TOO_LARGE_MS);
    return { skipped: tooMany };
  }
  const perms = scan.perms.size > 0 ? store.objects.put('blob', encodePerms(scan.perms)) : undefined;
  const meta: CheckpointMeta = {
    v: 1,
    ...occasion,
    at: Date.now(),
    cwd: root,
    files: scan.files,
    bytes: scan.bytes,
    ...(perms ? { perms } : {}),
    ...(scan.oversizeCount + scan.unreadable + scan.special > 0
      ? {
          skipped: {
            oversize: scan.oversize,
            oversizeCount: scan.oversizeCount,
            unreadable: scan.unreadable,
            special: scan.special,
          },
        }
      : {}),
  };
  return { checkpoint: store.commit(scan.tree, meta, refName), scan };
}
