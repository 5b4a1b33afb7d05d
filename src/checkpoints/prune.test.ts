import { mkdtempSync, readdirSync, realpathSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../config/config.js';
import { flatten } from './catalog.js';
import { expired, prune } from './prune.js';
import { takeCheckpoint } from './snapshot.js';
import { CheckpointStore, type Checkpoint } from './store.js';

const dir = (prefix: string): string => realpathSync(mkdtempSync(join(tmpdir(), prefix)));

function objectFiles(store: CheckpointStore): string[] {
  return readdirSync(store.objects.dir)
    .filter((d) => /^[0-9a-f]{2}$/.test(d))
    .flatMap((d) => readdirSync(join(store.objects.dir, d)).map((f) => join(store.objects.dir, d, f)));
}

const fake = (workflowId: string, at: number): Checkpoint =>
  ({ id: `${at}`, tree: '', time: 0, ref: `${workflowId}/${at}`, meta: { workflowId, at } }) as unknown as Checkpoint;

describe('pruning', () => {
  it('keeps the newest `count` of each run and none past `age`', () => {
    const now = 1_000_000_000;
    const all = [fake('a', now - 1000), fake('a', now - 2000), fake('a', now - 3000), fake('b', now - 90_000_000)];
    expect(expired(all, { count: 2, age: 86_400 }, now).map((c) => c.ref)).toEqual(['a/999997000', 'b/910000000']);
  });

  it('removes the objects only pruned checkpoints held, once past the grace period, and keeps the rest readable', async () => {
    const settings = { ...parseConfig({}).checkpoints, keep: { count: 1, age: 86_400 } };
    const cwd = dir('tether-prune-task-');
    const store = new CheckpointStore(dir('tether-prune-home-'));
    const meta = { kind: 'turn' as const, workflowId: 'w', chain: 'c', turn: 1 };
    writeFileSync(join(cwd, 'f'), 'first version');
    await takeCheckpoint(store, settings, cwd, meta, 't1');
    writeFileSync(join(cwd, 'f'), 'second version, longer');
    const second = await takeCheckpoint(store, settings, cwd, { ...meta, turn: 2 }, 't2');
    if (!('checkpoint' in second)) throw new Error(second.skipped);
    // Everything is new: within the grace period nothing goes, though the first checkpoint does.
    const fresh = await prune(store, settings);
    expect(fresh).toMatchObject({ checkpoints: 1, objects: 0 });
    expect(store.list('w').map((c) => c.meta.turn)).toEqual([2]);
    // Two hours later, the first checkpoint's commit, tree and blob go; the second stays whole.
    const old = new Date(Date.now() - 2 * 3600_000);
    for (const f of objectFiles(store)) utimesSync(f, old, old);
    const later = await prune(store, settings);
    expect(later.objects).toBe(3);
    expect(flatten(store.objects, second.checkpoint).get('f')?.oid).toBeDefined();
    expect(store.objects.read(flatten(store.objects, second.checkpoint).get('f')!.oid).body.toString()).toBe(
      'second version, longer',
    );
  });
});
