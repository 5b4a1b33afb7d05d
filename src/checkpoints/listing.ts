// A run's checkpoints as `tether checkpoints` and the inbox show them: each with the call it preceded and what
// changed after it (until the next checkpoint, or until now for the newest). Worker-only.
import { existsSync } from 'node:fs';
import type { CheckpointSettings } from '../config/config.js';
import { diffFlat, flatten, type ChangeSummary } from './catalog.js';
import type { FlatEntry } from './scan.js';
import { scanDirectory } from './snapshot.js';
import type { Checkpoint, CheckpointStore } from './store.js';

export interface ListedCheckpoint {
  id: string;
  at: string;
  kind: 'turn' | 'rollback';
  turn: number;
  callId?: string;
  tool?: string;
  args?: string;
  cwd: string;
  chain: string;
  files: number;
  bytes: number;
  /** A rollback's checkpoint: which checkpoint the rollback went back to, and the path it restored. */
  rollbackTo?: string;
  rollbackPath?: string;
  skipped?: { oversizeCount: number; oversize: string[]; unreadable: number; special: number };
  /**
   * Files and links that changed after it, until the next checkpoint of the same directory (`next`) or until now
   * (`now`, for the newest): how many, and the first few paths of each.
   */
  changedAfter?: { until: 'next' | 'now'; added: number; modified: number; deleted: number; paths: ChangeSummary };
}

const MAX_PATHS = 20;
const cut = (s: ChangeSummary): ChangeSummary => ({
  added: s.added.slice(0, MAX_PATHS),
  modified: s.modified.slice(0, MAX_PATHS),
  deleted: s.deleted.slice(0, MAX_PATHS),
});

/** Trees read by this process, by id (a checkpoint never changes). */
const flats = new Map<string, Map<string, FlatEntry>>();
/** The directory now, scanned without storing, for a few seconds (the inbox draws a running run every 2 s). */
const nowScans = new Map<string, { at: number; flat: Map<string, FlatEntry> }>();

function flatOf(store: CheckpointStore, c: Checkpoint): Map<string, FlatEntry> {
  const held = flats.get(c.tree);
  if (held) return held;
  const flat = flatten(store.objects, c);
  if (flats.size > 64) flats.delete(flats.keys().next().value ?? '');
  flats.set(c.tree, flat);
  return flat;
}

async function nowOf(
  store: CheckpointStore,
  settings: CheckpointSettings,
  cwd: string,
): Promise<Map<string, FlatEntry> | undefined> {
  const held = nowScans.get(cwd);
  if (held && Date.now() - held.at < 5_000) return held.flat;
  if (!existsSync(cwd)) return undefined;
  try {
    const flat = (await scanDirectory(store, settings, cwd, false, { flat: true })).flat;
    nowScans.set(cwd, { at: Date.now(), flat });
    if (nowScans.size > 16) nowScans.delete(nowScans.keys().next().value ?? '');
    return flat;
  } catch {
    return undefined; // too large, unreadable: no summary for the newest
  }
}

export async function listCheckpoints(
  store: CheckpointStore,
  settings: CheckpointSettings,
  workflowId: string,
): Promise<ListedCheckpoint[]> {
  const list = store.list(workflowId);
  const out: ListedCheckpoint[] = [];
  for (let i = 0; i < list.length; i += 1) {
    const c = list[i]!;
    const m = c.meta;
    const next = list.slice(i + 1).find((n) => n.meta.cwd === m.cwd);
    let changed: ListedCheckpoint['changedAfter'];
    try {
      const after = next ? flatOf(store, next) : await nowOf(store, settings, m.cwd);
      if (after) {
        const d = diffFlat(flatOf(store, c), after);
        changed = {
          until: next ? 'next' : 'now',
          added: d.added.length,
          modified: d.modified.length,
          deleted: d.deleted.length,
          paths: cut(d),
        };
      }
    } catch {
      // an object is missing (the store was damaged): listed without a summary
    }
    out.push({
      id: c.id,
      at: new Date(m.at).toISOString(),
      kind: m.kind,
      turn: m.turn,
      ...(m.callId ? { callId: m.callId } : {}),
      ...(m.tool ? { tool: m.tool } : {}),
      ...(m.args ? { args: m.args } : {}),
      cwd: m.cwd,
      chain: m.chain,
      files: m.files,
      bytes: m.bytes,
      ...(m.rollback
        ? { rollbackTo: m.rollback.to, ...(m.rollback.path ? { rollbackPath: m.rollback.path } : {}) }
        : {}),
      ...(m.skipped ? { skipped: m.skipped } : {}),
      ...(changed ? { changedAfter: changed } : {}),
    });
  }
  return out;
}
