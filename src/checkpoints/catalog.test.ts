// Which checkpoint `--turn N` and `--to ID` name, and what a person is told when none does; a rollback of a
// directory that is gone, of a path nobody has, and from a damaged store.
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../config/config.js';
import { resolveTarget } from './catalog.js';
import { rollback } from './rollback.js';
import { takeCheckpoint } from './snapshot.js';
import { CheckpointStore, type Checkpoint } from './store.js';

const cp = (id: string, turn: number, chain = 'c2', kind: 'turn' | 'rollback' = 'turn'): Checkpoint =>
  ({ id, tree: '', time: 0, ref: id, meta: { turn, chain, kind } }) as unknown as Checkpoint;

describe('resolving --turn and --to', () => {
  // An earlier run with the same workflow id (chain c1), then the current one (c2) with a rollback's checkpoint.
  const list = [cp('aaaa1111', 3, 'c1'), cp('bbbb2222', 2), cp('bbbb3333', 5), cp('cccc4444', 0, 'c2', 'rollback')];

  it('takes the first checkpoint at or after turn N of the current run', () => {
    expect(resolveTarget(list, { turn: 1 }, 'wf', 'c2').id).toBe('bbbb2222');
    expect(resolveTarget(list, { turn: 3 }, 'wf', 'c2').id).toBe('bbbb3333');
    expect(resolveTarget(list, { turn: 3 }, 'wf', 'c1').id).toBe('aaaa1111');
    // Without Temporal's word on the current run, the newest checkpoint's chain is it.
    expect(resolveTarget(list, { turn: 3 }, 'wf').id).toBe('bbbb3333');
  });

  it('says why when no checkpoint is at or after turn N', () => {
    expect(() => resolveTarget(list, { turn: 6 }, 'wf', 'c2')).toThrow(
      'wf has no checkpoint at or after turn 6 (the last is before turn 5): no call from turn 6 on could change files, so there is nothing to roll back',
    );
    expect(() => resolveTarget([], { turn: 1 }, 'wf')).toThrow(/^wf has no checkpoints here/);
    expect(() => resolveTarget(list, { turn: 1 }, 'wf', 'c3')).toThrow(
      'the current run of wf has no checkpoints yet; the 4 here are of an earlier run with this id: use --to ID',
    );
  });

  it('takes an id by a unique prefix, any chain or kind', () => {
    expect(resolveTarget(list, { id: 'AAAA' }, 'wf', 'c2').id).toBe('aaaa1111');
    expect(resolveTarget(list, { id: 'cccc4' }, 'wf').id).toBe('cccc4444');
    expect(() => resolveTarget(list, { id: 'bbbb' }, 'wf')).toThrow(
      '--to bbbb names 2 checkpoints of wf; give more digits',
    );
    expect(() => resolveTarget(list, { id: 'dddd' }, 'wf')).toThrow('wf has no checkpoint dddd');
    expect(() => resolveTarget(list, { id: 'xyz' }, 'wf')).toThrow(/a checkpoint id is 4 to 40 hexadecimal digits/);
  });
});

describe('rolling back what is not there', () => {
  const settings = parseConfig({}).checkpoints;
  const setUp = async (): Promise<{ cwd: string; store: CheckpointStore }> => {
    const parent = realpathSync(mkdtempSync(join(tmpdir(), 'tether-catalog-')));
    const cwd = join(parent, 'task');
    const store = new CheckpointStore(join(parent, 'home'));
    mkdirSync(cwd);
    writeFileSync(join(cwd, 'a.txt'), 'a');
    await takeCheckpoint(store, settings, cwd, { kind: 'turn', workflowId: 'w', chain: 'c', turn: 1 }, 't1');
    return { cwd, store };
  };

  it('makes the task directory again when it was removed', async () => {
    const { cwd, store } = await setUp();
    rmSync(cwd, { recursive: true });
    const r = await rollback(store, settings, { workflowId: 'w', target: { turn: 1 }, by: 'test' });
    expect(r.changes.map((c) => c.action)).toEqual(['restored', 'restored']);
    expect(readdirSync(cwd)).toEqual(['a.txt']);
  });

  it('refuses a path neither the checkpoint nor the directory holds', async () => {
    const { store } = await setUp();
    await expect(
      rollback(store, settings, { workflowId: 'w', target: { turn: 1 }, by: 'test', path: 'nope.txt', dryRun: true }),
    ).rejects.toThrow('--path nope.txt: neither the checkpoint nor the directory now holds it');
  });

  it('says which checkpoint cannot be read when the store lost an object', async () => {
    const { store } = await setUp();
    const [c] = store.list('w');
    const objects = store.objects.dir;
    rmSync(join(objects, c!.tree.slice(0, 2), c!.tree.slice(2)));
    await expect(rollback(store, settings, { workflowId: 'w', target: { turn: 1 }, by: 'test' })).rejects.toThrow(
      new RegExp(`^checkpoint ${c!.id.slice(0, 12)} cannot be read: checkpoint object ${c!.tree} is missing`),
    );
  });
});
