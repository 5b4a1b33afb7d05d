// Benchmark (not a test): checkpoints of a 10,000-file / 100 MB task directory, unchanged and with one changed file,
// a restarted worker's first one (its scan cache read from the store), store growth per changed byte, and a rollback
// of 1,000 deleted files. Baselines measured in the same run: a bare readdir + lstat walk of the tree (the floor for
// any approach that looks at every file), and `git add -A && git write-tree` with a warm index (a shadow git repo,
// as Hermes does it). Run: npm run bench:checkpoints
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseConfig } from '../src/config/config.js';
import { rollback } from '../src/checkpoints/rollback.js';
import { takeCheckpoint } from '../src/checkpoints/snapshot.js';
import { CheckpointStore } from '../src/checkpoints/store.js';
import { fmt, machine, summary } from './stats.js';

const FILES = 10_000;
const FILE_BYTES = 10_000;
const DIRS = 100;
const RUNS = 30;
const settings = parseConfig({}).checkpoints;

/** CPU time of this process per sample, beside wall time: on a loaded machine the wall clock also counts waiting. */
const cpu = new Map<number[], number[]>();

async function time(fn: () => Promise<unknown> | unknown, into?: number[]): Promise<number> {
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  await fn();
  const wall = Number(process.hrtime.bigint() - t0) / 1e6;
  const used = process.cpuUsage(c0);
  if (into) {
    into.push(wall);
    cpu.set(into, [...(cpu.get(into) ?? []), (used.user + used.system) / 1000]);
  }
  return wall;
}

/** 100 directories of 100 files of 10 KB (half one level deeper): 10,000 files, 100 MB. */
function makeTree(root: string): string[] {
  const files: string[] = [];
  for (let d = 0; d < DIRS; d += 1) {
    mkdirSync(join(root, `pkg${d}`, 'src'), { recursive: true });
    for (let f = 0; f < FILES / DIRS; f += 1) {
      const path = join(root, `pkg${d}`, f % 2 ? 'src' : '', `file${f}.txt`);
      writeFileSync(path, randomBytes(FILE_BYTES));
      files.push(path);
    }
  }
  return files;
}

function walk(dir: string): number {
  let n = 0;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    n += lstatSync(p).isDirectory() ? walk(p) : 1;
  }
  return n;
}

function duBytes(dir: string): number {
  let n = 0;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const s = lstatSync(p);
    n += s.isDirectory() ? duBytes(p) : s.size;
  }
  return n;
}

const cpuMedian = (samples: number[]): number => summary(cpu.get(samples) ?? []).median;

/** Wall median and p99, CPU median (a child process's CPU is not this process's: git's shows as little), ratio. */
const line = (what: string, samples: number[], base: number[]): string => {
  const s = summary(samples);
  return `| ${what} | ${fmt(s.median, 1)} ms | ${fmt(s.p99, 1)} ms | ${fmt(cpuMedian(samples), 1)} ms | ${fmt(s.median / summary(base).median, 2)}× |`;
};

async function main(): Promise<void> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'tether-bench-ckpt-')));
  const cwd = join(root, 'task');
  mkdirSync(cwd);
  const home = join(root, 'home');
  const files = makeTree(cwd);
  const store = new CheckpointStore(home);
  let turn = 0;
  const take = async (): Promise<void> => {
    turn += 1;
    const r = await takeCheckpoint(
      store,
      settings,
      cwd,
      { kind: 'turn', workflowId: 'bench', chain: 'c', turn },
      `t${turn}`,
    );
    if ('skipped' in r) throw new Error(r.skipped);
  };

  // A file changed within two seconds of a checkpoint is read again by the next one (scan.ts, RACY_MS); the tree
  // was just written, so without this wait the first unchanged checkpoint would read all 10,000 files again.
  await new Promise((r) => setTimeout(r, 2_100));
  const first = await time(take);

  // Baselines, interleaved with the figures they are compared with so the machine's load hits both alike.
  const lstatWalk: number[] = [];
  const unchanged: number[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    await time(() => walk(cwd), lstatWalk);
    await time(take, unchanged);
  }
  const git = hasGit();
  const gitEnv = {
    PATH: process.env.PATH,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    HOME: root,
    GIT_DIR: join(root, 'shadow.git'),
    GIT_WORK_TREE: cwd,
    GIT_INDEX_FILE: join(root, 'shadow.index'),
  };
  const gitRuns: number[] = [];
  if (git) {
    execFileSync('git', ['init', '-q', '--bare', join(root, 'shadow.git')]);
    execFileSync('git', ['add', '-A'], { env: gitEnv });
    for (let i = 0; i < RUNS; i += 1)
      await time(() => {
        execFileSync('git', ['add', '-A'], { env: gitEnv });
        execFileSync('git', ['write-tree'], { env: gitEnv });
      }, gitRuns);
  }

  // One changed file per checkpoint (a different one each time), and what the store grew by.
  const storeBefore = duBytes(join(home, 'checkpoints', 'objects'));
  const changed: number[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    writeFileSync(files[(i * 337) % files.length]!, randomBytes(FILE_BYTES));
    await time(take, changed);
  }
  const grew = duBytes(join(home, 'checkpoints', 'objects')) - storeBefore;

  // A restarted worker: its scan cache comes from the store, not from memory.
  const restarted = coldProcess(home, cwd);

  // 1,000 files deleted, then rolled back (a checkpoint of the directory first, then the writes).
  const deleted = join(cwd, 'pkg7');
  rmSync(join(cwd, 'pkg7'), { recursive: true });
  for (let d = 8; d < 17; d += 1) rmSync(join(cwd, `pkg${d}`), { recursive: true });
  const restore = await time(() =>
    rollback(store, settings, { workflowId: 'bench', target: { turn: 1 }, by: 'bench' }),
  );
  if (statSync(deleted).isDirectory() !== true) throw new Error('rollback did not restore');

  const u = summary(unchanged);
  const g = gitRuns.length ? summary(gitRuns) : undefined;
  const out = [
    `Checkpoints of a ${walk(cwd)}-file, ${(FILES * FILE_BYTES) / 1e6} MB task directory; ${RUNS} runs each.`,
    `Machine: ${machine()}; load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} (1, 5, 15 min) at the end.`,
    '',
    '| what | wall median | wall p99 | CPU median | wall vs the lstat walk |',
    '|---|---|---|---|---|',
    line('bare readdir + lstat walk (baseline)', lstatWalk, lstatWalk),
    ...(g
      ? [line('`git add -A && git write-tree`, warm index (baseline; its CPU is in git)', gitRuns, lstatWalk)]
      : []),
    line('checkpoint, unchanged tree (goal ≤ 50 ms)', unchanged, lstatWalk),
    line('checkpoint, one 10 KB file changed (goal ≤ 100 ms)', changed, lstatWalk),
    `| first checkpoint (every file read and stored) | ${fmt(first, 0)} ms | | | |`,
    `| a restarted worker's first checkpoint, unchanged tree (cache read from the store) | ${fmt(restarted, 1)} ms | | | |`,
    `| rollback of 1,000 deleted files (10 MB), its checkpoint first | ${fmt(restore, 0)} ms | | | |`,
    '',
    g
      ? `Unchanged checkpoint vs git add + write-tree: ${fmt(u.median / g.median, 2)}×.`
      : 'git not found: no git baseline.',
    `Store growth for ${RUNS} changed files of ${FILE_BYTES} bytes (${RUNS * FILE_BYTES} bytes changed): ${grew} bytes, ${fmt(grew / (RUNS * FILE_BYTES), 2)}× the changed bytes (random content does not compress; whole changed files are stored, not deltas).`,
    '',
    'Reproduce: npm run bench:checkpoints',
  ];
  process.stdout.write(`${out.join('\n')}\n`);
  rmSync(root, { recursive: true, force: true });
}

function hasGit(): boolean {
  return spawnSync('git', ['--version']).status === 0;
}

/** One checkpoint in a new process (as after a worker restart), timed inside it so module loading does not count. */
function coldProcess(home: string, cwd: string): number {
  const here = fileURLToPath(new URL('.', import.meta.url));
  const script = `
    const { takeCheckpoint } = await import(${JSON.stringify(join(here, '../src/checkpoints/snapshot.ts'))});
    const { CheckpointStore } = await import(${JSON.stringify(join(here, '../src/checkpoints/store.ts'))});
    const { parseConfig } = await import(${JSON.stringify(join(here, '../src/config/config.ts'))});
    const store = new CheckpointStore(${JSON.stringify(home)});
    const t0 = process.hrtime.bigint();
    await takeCheckpoint(store, parseConfig({}).checkpoints, ${JSON.stringify(cwd)}, { kind: 'turn', workflowId: 'bench', chain: 'c', turn: 9999 }, 't9999');
    process.stdout.write(String(Number(process.hrtime.bigint() - t0) / 1e6));
  `;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  return Number(r.stdout);
}

await main();
