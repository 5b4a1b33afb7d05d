// Reading checkpoints back: a checkpoint's whole tree by path, what changed between two, and which checkpoint a
// person means by `--turn N` or `--to ID`. Worker-only.
import { TetherError } from '../common/errors.js';
import { EMPTY_TREE, type ObjectStore, type Oid } from './git-objects.js';
import { decodePerms, type FlatEntry } from './scan.js';
import type { Checkpoint } from './store.js';

/** Every entry of a checkpoint (directories included) by path, as latin1 text of the path's bytes. */
export function flatten(objects: ObjectStore, c: Pick<Checkpoint, 'tree' | 'meta'>): Map<string, FlatEntry> {
  const out = new Map<string, FlatEntry>();
  const perms = c.meta.perms ? decodePerms(objects.read(c.meta.perms).body) : new Map<string, number>();
  const walk = (tree: Oid, prefix: string): void => {
    if (tree === EMPTY_TREE) return;
    for (const e of objects.readTree(tree)) {
      const rel = prefix + e.name.toString('latin1');
      const perm = perms.get(rel);
      out.set(rel, perm === undefined ? { mode: e.mode, oid: e.oid } : { mode: e.mode, oid: e.oid, perm });
      if (e.mode === '40000') walk(e.oid, `${rel}/`);
    }
  };
  walk(c.tree, '');
  return out;
}

export interface ChangeSummary {
  added: string[];
  modified: string[];
  deleted: string[];
}

const shown = (rel: string): string => Buffer.from(rel, 'latin1').toString('utf8');

/** Files and links that differ from `before` to `after` (directories follow from them; empty ones are not counted). */
export function diffFlat(before: Map<string, FlatEntry>, after: Map<string, FlatEntry>): ChangeSummary {
  const s: ChangeSummary = { added: [], modified: [], deleted: [] };
  for (const [p, a] of after) {
    if (a.mode === '40000') continue;
    const b = before.get(p);
    if (!b || b.mode === '40000') s.added.push(shown(p));
    else if (b.oid !== a.oid || b.mode !== a.mode || b.perm !== a.perm) s.modified.push(shown(p));
  }
  for (const [p, b] of before) {
    const a = after.get(p);
    if (b.mode !== '40000' && (!a || a.mode === '40000')) s.deleted.push(shown(p));
  }
  return s;
}

/** `+2 ~1 -3`: added, modified, deleted. */
export function summaryText(s: ChangeSummary): string {
  return `+${s.added.length} ~${s.modified.length} -${s.deleted.length}`;
}

/** What a person asked for: the checkpoint before turn N, or one by its id (a unique prefix of at least 4 digits). */
export type Target = { turn: number } | { id: string };

/**
 * The checkpoint `target` names among `list` (one run's, oldest first). `--turn N` takes the first checkpoint taken
 * at or after turn N in the run's current chain (`chain`, else the newest checkpoint's): no call between the start
 * of turn N and it could change files, so it is the directory as it was before turn N.
 */
export function resolveTarget(list: Checkpoint[], target: Target, workflowId: string, chain?: string): Checkpoint {
  if (list.length === 0)
    throw new TetherError(
      'Checkpoint.NotFound',
      `${workflowId} has no checkpoints here (in TETHER_HOME/checkpoints of this machine): either no call of it could change files, checkpoints were off, or they were pruned`,
    );
  if ('id' in target) {
    const id = target.id.toLowerCase();
    if (!/^[0-9a-f]{4,40}$/.test(id))
      throw new TetherError(
        'Cli.Usage',
        `--to ${target.id}: a checkpoint id is 4 to 40 hexadecimal digits (tether checkpoints ${workflowId} lists them)`,
      );
    const found = list.filter((c) => c.id.startsWith(id));
    if (found.length === 1) return found[0]!;
    if (found.length > 1)
      throw new TetherError(
        'Cli.Usage',
        `--to ${target.id} names ${found.length} checkpoints of ${workflowId}; give more digits`,
      );
    throw new TetherError(
      'Checkpoint.NotFound',
      `${workflowId} has no checkpoint ${target.id} (tether checkpoints ${workflowId} lists them)`,
    );
  }
  if (chain && !list.some((c) => c.meta.chain === chain))
    throw new TetherError(
      'Checkpoint.NotFound',
      `the current run of ${workflowId} has no checkpoints yet; the ${list.length} here are of an earlier run with this id: use --to ID (tether checkpoints ${workflowId} lists them)`,
    );
  const current = chain ?? list[list.length - 1]!.meta.chain;
  const turns = list.filter((c) => c.meta.chain === current && c.meta.kind === 'turn');
  const found = turns.find((c) => c.meta.turn >= target.turn);
  if (found) return found;
  const last = turns.at(-1)?.meta.turn;
  throw new TetherError(
    'Checkpoint.NotFound',
    last === undefined
      ? `${workflowId} has no checkpoints before a turn in its current run; use --to ID (tether checkpoints ${workflowId} lists them)`
      : `${workflowId} has no checkpoint at or after turn ${target.turn} (the last is before turn ${last}): no call from turn ${target.turn} on could change files, so there is nothing to roll back`,
  );
}
