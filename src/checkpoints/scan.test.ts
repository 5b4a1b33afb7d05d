// A scan reuses a directory's tree from the last scan when nothing in it changed (scan.ts, DirTrees): whatever
// changes between two scans, the tree it gives must be the one a scan from nothing gives.
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { parseConfig } from '../config/config.js';
import { ExcludeRules } from '../config/checkpoint-exclude.js';
import { scanDirectory } from './snapshot.js';
import { flatten } from './catalog.js';
import { scanTree } from './scan.js';
import { CheckpointStore } from './store.js';

const settings = parseConfig({}).checkpoints;

/** A small random number generator with a seed, so a failure can be run again. */
function rng(seed: number): (n: number) => number {
  let x = seed >>> 0 || 1;
  return (n) => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % n;
  };
}

function allPaths(root: string, rel = ''): { files: string[]; dirs: string[] } {
  const out = { files: [] as string[], dirs: [] as string[] };
  for (const e of readdirSync(join(root, rel), { withFileTypes: true })) {
    const p = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) {
      out.dirs.push(p);
      const sub = allPaths(root, p);
      out.files.push(...sub.files);
      out.dirs.push(...sub.dirs);
    } else out.files.push(p);
  }
  return out;
}

const MUTATIONS: ((root: string, pick: (n: number) => number) => void)[] = [
  (root, pick) => {
    const { files } = allPaths(root);
    if (files.length) writeFileSync(join(root, files[pick(files.length)]!), randomBytes(1 + pick(40)));
  },
  (root, pick) => {
    const { files } = allPaths(root);
    if (files.length) rmSync(join(root, files[pick(files.length)]!));
  },
  (root, pick) => {
    const { dirs } = allPaths(root);
    const d = dirs.length ? dirs[pick(dirs.length)]! : '';
    writeFileSync(join(root, d, `new${pick(1000)}`), randomBytes(8));
  },
  (root, pick) => {
    const { files } = allPaths(root);
    if (files.length) chmodSync(join(root, files[pick(files.length)]!), pick(2) ? 0o755 : 0o644);
  },
  (root, pick) => {
    const { files } = allPaths(root);
    const f = files[pick(files.length)];
    if (f) renameSync(join(root, f), join(root, `${f}.moved`));
  },
  (root, pick) => {
    const { dirs } = allPaths(root);
    const d = dirs[pick(dirs.length)];
    if (d) rmSync(join(root, d), { recursive: true });
  },
  (root, pick) => {
    const { dirs } = allPaths(root);
    if (dirs.length >= 2) {
      // Two directories swap names: every file in them is where another was.
      const a = dirs[pick(dirs.length)]!;
      const b = dirs[pick(dirs.length)]!;
      if (a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`)) return;
      renameSync(join(root, a), join(root, 'swap.tmp'));
      renameSync(join(root, b), join(root, a));
      renameSync(join(root, 'swap.tmp'), join(root, b));
    }
  },
  (root, pick) => {
    const { files } = allPaths(root);
    const f = files[pick(files.length)];
    if (f) {
      rmSync(join(root, f));
      symlinkSync(`target${pick(9)}`, join(root, f));
    }
  },
  (root, pick) => {
    const { files } = allPaths(root);
    const f = files[pick(files.length)];
    if (f) {
      rmSync(join(root, f));
      mkdirSync(join(root, f));
    }
  },
  (root, pick) => {
    const { files } = allPaths(root);
    const f = files[pick(files.length)];
    if (f) linkSync(join(root, f), join(root, `${f}.link${pick(99)}`));
  },
  (root) => mkdirSync(join(root, `empty${Date.now()}`)),
];

it('reuses the trees of unchanged directories, and gives the tree a scan from nothing gives whatever changed', async () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'tether-scan-')));
  const task = join(root, 'task');
  for (let d = 0; d < 6; d += 1) {
    mkdirSync(join(task, `d${d}`, 'sub'), { recursive: true });
    for (let f = 0; f < 4; f += 1) writeFileSync(join(task, `d${d}`, f % 2 ? 'sub' : '', `f${f}`), randomBytes(16));
  }
  const store = new CheckpointStore(join(root, 'home'));
  // Files changed in the last two seconds are never trusted from the cache (scan.ts, RACY_MS): wait them out.
  await new Promise((r) => setTimeout(r, 2_100));
  await scanDirectory(store, settings, task, true);
  const steady = await scanDirectory(store, settings, task, true);
  expect(steady.reusedTrees).toBe(13); // every directory: six, six below them, and the task directory

  const pick = rng(Number(process.env.SCAN_TEST_SEED ?? 20261205));
  let reused = 0;
  for (let round = 0; round < 60; round += 1) {
    MUTATIONS[pick(MUTATIONS.length)]!(task, pick);
    const got = await scanDirectory(store, settings, task, true);
    const fresh = await scanTree({
      root: task,
      rules: new ExcludeRules(settings.exclude),
      objects: store.objects,
      write: false,
      cache: new Map(),
      maxFileBytes: settings.max_file_bytes,
      maxFiles: settings.max_files,
    });
    expect(got.tree, `round ${round}`).toBe(fresh.tree);
    expect(got.files).toBe(fresh.files);
    reused += got.reusedTrees;
  }
  expect(reused).toBeGreaterThan(60); // most rounds change one directory and reuse the others
  rmSync(root, { recursive: true, force: true });
});

it('walks below a directory whose name is not valid UTF-8, by its bytes', async () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'tether-scan-')));
  const odd = Buffer.concat([Buffer.from(join(root, 'task', 'bad')), Buffer.from([0xff]), Buffer.from('dir')]);
  mkdirSync(Buffer.concat([odd, Buffer.from('/inner')]), { recursive: true });
  writeFileSync(Buffer.concat([odd, Buffer.from('/inner/file')]), 'content');
  const store = new CheckpointStore(join(root, 'home'));
  const got = await scanDirectory(store, settings, join(root, 'task'), true, { flat: true });
  expect(got.files).toBe(1);
  expect(got.unreadable).toBe(0);
  expect([...got.flat.keys()]).toContain(`bad${String.fromCharCode(0xff)}dir/inner/file`);
  rmSync(root, { recursive: true, force: true });
});

it('a path longer than the system takes is left out and counted; the rest of the directory is kept', async () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'tether-scan-')));
  const task = join(root, 'task');
  mkdirSync(task);
  writeFileSync(join(task, 'top.txt'), 'kept');
  // 25 names of 200 bytes: deeper than PATH_MAX (4,096), made a level at a time by a shell that cds into each.
  const name = 'd'.repeat(200);
  execFileSync('sh', [
    '-c',
    `cd "$1" && for i in $(seq 25); do mkdir ${name} && cd -P ${name}; done && echo deep > f`,
    'sh',
    task,
  ]);
  const store = new CheckpointStore(join(root, 'home'));
  const got = await scanDirectory(store, settings, task, true, { flat: true });
  expect(got.flat.has('top.txt')).toBe(true);
  expect(got.unreadable).toBeGreaterThan(0);
  execFileSync('rm', ['-rf', root]);
});

it('a store removed while the worker runs is filled again: every tree the next checkpoint names is stored', async () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'tether-scan-')));
  const task = join(root, 'task');
  mkdirSync(join(task, 'a', 'b'), { recursive: true });
  writeFileSync(join(task, 'a', 'b', 'f'), 'x');
  const store = new CheckpointStore(join(root, 'home'));
  await new Promise((r) => setTimeout(r, 2_100));
  await scanDirectory(store, settings, task, true);
  await scanDirectory(store, settings, task, true);
  rmSync(store.root, { recursive: true });
  const got = await scanDirectory(store, settings, task, true);
  expect([...flatten(store.objects, { tree: got.tree, meta: { v: 1 } as never }).keys()]).toEqual([
    'a',
    'a/b',
    'a/b/f',
  ]);
  rmSync(root, { recursive: true, force: true });
});
