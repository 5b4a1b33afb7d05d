// The store is git's own format: git reads what tether writes (fsck --strict, cat-file, ls-tree), and a tree made by
// tether is the tree git makes of the same directory.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, openSync, closeSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../config/config.js';
import { EMPTY_TREE, ObjectStore, objectId } from './git-objects.js';
import { takeCheckpoint } from './snapshot.js';
import { CheckpointStore } from './store.js';

const git = (gitDir: string, ...args: string[]): string =>
  execFileSync('git', ['--git-dir', gitDir, ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', HOME: '/nonexistent' },
  });

describe('git-format objects', () => {
  it('hashes as git does', () => {
    expect(objectId('tree', Buffer.alloc(0))).toBe(EMPTY_TREE);
    expect(objectId('blob', Buffer.from('hello\n'))).toBe('ce013625030ba8dba906f756967f9e9ca394464a');
  });

  it('stores a large file streamed, readable by git byte for byte', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tether-objects-'));
    execFileSync('git', ['init', '-q', '--bare', join(dir, 'repo')]);
    const store = new ObjectStore(join(dir, 'repo', 'objects'));
    const data = Buffer.alloc(3 * 1024 * 1024 + 17, 7);
    writeFileSync(join(dir, 'big'), data);
    const fd = openSync(join(dir, 'big'), 'r');
    const oid = await store.putFile(fd, data.length);
    closeSync(fd);
    expect(oid).toBe(execFileSync('git', ['hash-object', join(dir, 'big')], { encoding: 'utf8' }).trim());
    expect(store.read(oid).body.equals(data)).toBe(true);
    expect(git(join(dir, 'repo'), 'cat-file', '-s', oid).trim()).toBe(String(data.length));
  });

  it("makes the tree git's write-tree makes of the same files, and git's fsck finds nothing wrong", async () => {
    const home = mkdtempSync(join(tmpdir(), 'tether-objects-home-'));
    const cwd = mkdtempSync(join(tmpdir(), 'tether-objects-cwd-'));
    // Names whose order differs between a plain byte sort and git's (a directory sorts as if it ended with '/').
    for (const d of ['a', 'a.b', 'sub/deeper']) mkdirSync(join(cwd, d), { recursive: true });
    for (const f of ['a-b', 'a.c', 'a0', 'sub/x', 'sub/deeper/y', 'a/z']) writeFileSync(join(cwd, f), f);
    writeFileSync(join(cwd, 'a.b', 'in'), 'in');
    writeFileSync(join(cwd, 'run.sh'), '#!/bin/sh\n');
    chmodSync(join(cwd, 'run.sh'), 0o755);
    symlinkSync('sub/x', join(cwd, 'link'));
    const store = new CheckpointStore(home);
    const taken = await takeCheckpoint(
      store,
      parseConfig({}).checkpoints,
      cwd,
      { kind: 'turn', workflowId: 'wf', chain: 'c', turn: 1 },
      't1',
    );
    if (!('checkpoint' in taken)) throw new Error(taken.skipped);
    const gitDir = join(home, 'checkpoints');
    const env = {
      PATH: process.env.PATH,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      HOME: '/nonexistent',
      GIT_DIR: join(home, 'plain.git'),
      GIT_WORK_TREE: cwd,
      GIT_INDEX_FILE: join(home, 'index'),
    };
    execFileSync('git', ['init', '-q', '--bare', join(home, 'plain.git')]);
    execFileSync('git', ['add', '-A'], { env });
    const gitTree = execFileSync('git', ['write-tree'], { env, encoding: 'utf8' }).trim();
    expect(taken.checkpoint.tree).toBe(gitTree);
    expect(git(gitDir, 'fsck', '--strict', '--no-dangling')).toBe('');
    expect(git(gitDir, 'log', '--format=%s', taken.checkpoint.id).trim()).toBe('before turn 1');
  });
});
