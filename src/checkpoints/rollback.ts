// A rollback: the task directory (or one path in it) put back as a checkpoint holds it, after a checkpoint of how it
// is now, so that the rollback itself can be undone. Used by `tether rollback` and the inbox. Worker-only.
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, isAbsolute } from 'node:path';
import type { CheckpointSettings } from '../config/config.js';
import { TetherError } from '../common/errors.js';
import { normalizePath } from '../common/paths.js';
import { flatten, resolveTarget, type Target } from './catalog.js';
import { applyPlan, describePlan, plan, type Change } from './restore.js';
import { scanDirectory, takeCheckpoint, taskDirectory } from './snapshot.js';
import type { Checkpoint, CheckpointStore } from './store.js';

export interface RollbackRequest {
  workflowId: string;
  target: Target;
  /** One file or directory to restore, relative to the run's task directory (or absolute inside it). */
  path?: string;
  dryRun?: boolean;
  /** Who asked (`cli`, `inbox`): recorded in the checkpoint taken before. */
  by: string;
  /** The run's current chain (its first run id), when known: `--turn` counts turns of that run. */
  chain?: string;
}

export interface RollbackReport {
  workflowId: string;
  /** The checkpoint restored. */
  target: { id: string; kind: string; turn: number; tool?: string; args?: string; at: string };
  cwd: string;
  path?: string;
  dryRun: boolean;
  changes: Change[];
  /** The checkpoint taken just before (absent on a dry run): `--to` it undoes this rollback. */
  undo?: string;
}

/** `path` as a path relative to `root`, its bytes read as latin1 (the checkpoints' form); refused outside `root`. */
export function relativeTo(root: string, path: string): string | undefined {
  const abs = isAbsolute(path) ? normalizePath(path) : normalizePath(`${root}/${path}`);
  if (abs === root) return undefined;
  if (!abs.startsWith(`${root}/`))
    throw new TetherError('Cli.Usage', `--path ${path} is outside the run's task directory ${root}`);
  return Buffer.from(abs.slice(root.length + 1), 'utf8').toString('latin1');
}

function described(c: Checkpoint): RollbackReport['target'] {
  return {
    id: c.id,
    kind: c.meta.kind,
    turn: c.meta.turn,
    ...(c.meta.tool ? { tool: c.meta.tool } : {}),
    ...(c.meta.args ? { args: c.meta.args } : {}),
    at: new Date(c.meta.at).toISOString(),
  };
}

export async function rollback(
  store: CheckpointStore,
  settings: CheckpointSettings,
  req: RollbackRequest,
): Promise<RollbackReport> {
  const target = resolveTarget(store.list(req.workflowId), req.target, req.workflowId, req.chain);
  const remade = !req.dryRun && remakeTaskDirectory(target.meta.cwd);
  const root = taskDirectory(target.meta.cwd);
  if (typeof root !== 'string') throw new TetherError('Checkpoint.Failed', `cannot roll back: ${root.problem}`);
  const prefix = req.path === undefined ? undefined : relativeTo(root, req.path);
  let wanted: ReturnType<typeof flatten>;
  try {
    wanted = flatten(store.objects, target);
  } catch (err) {
    throw new TetherError(
      'Checkpoint.Failed',
      `checkpoint ${target.id.slice(0, 12)} cannot be read: ${(err as Error).message}`,
    );
  }
  const report = (changes: Change[], undo?: string): RollbackReport => ({
    workflowId: req.workflowId,
    target: described(target),
    cwd: root,
    ...(req.path !== undefined ? { path: req.path } : {}),
    dryRun: req.dryRun === true,
    changes,
    ...(undo ? { undo } : {}),
  });
  if (req.dryRun) {
    const now = (await scanDirectory(store, settings, root, false, { flat: true })).flat;
    checkPath(req.path, prefix, now, wanted);
    return report(describePlan(plan(now, wanted, prefix), now));
  }
  const before = await takeCheckpoint(
    store,
    settings,
    root,
    {
      kind: 'rollback',
      workflowId: req.workflowId,
      chain: target.meta.chain,
      turn: 0,
      rollback: { to: target.id, ...(req.path !== undefined ? { path: req.path } : {}), by: req.by },
    },
    `r${Date.now()}`,
    { flat: true },
  );
  if ('skipped' in before)
    throw new TetherError(
      'Checkpoint.Failed',
      `cannot roll back: the checkpoint that would let this rollback be undone could not be taken (${before.skipped})`,
    );
  const now = before.scan.flat;
  checkPath(req.path, prefix, now, wanted);
  const changes = applyPlan(plan(now, wanted, prefix), root, now, wanted, store.objects);
  if (remade) changes.unshift({ path: `${root}/`, action: 'restored' });
  return report(changes, before.checkpoint.id);
}

/**
 * The task directory itself was removed (possible when commands run unsandboxed): it is made again, as an empty
 * directory under its parent, when the parent is still there. True when it was made.
 */
function remakeTaskDirectory(cwd: string): boolean {
  if (existsSync(cwd) || !existsSync(dirname(cwd))) return false;
  try {
    mkdirSync(cwd, 0o755);
    return true;
  } catch {
    return false; // taskDirectory() then says why it cannot be used
  }
}

function checkPath(
  given: string | undefined,
  prefix: string | undefined,
  now: Map<string, unknown>,
  wanted: Map<string, unknown>,
): void {
  if (prefix === undefined || now.has(prefix) || wanted.has(prefix)) return;
  throw new TetherError(
    'Cli.Usage',
    `--path ${given ?? ''}: neither the checkpoint nor the directory now holds it (or checkpoints leave it out)`,
  );
}
