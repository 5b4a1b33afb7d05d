// The worker's and tasks' cgroups on this machine's kernel: limits that hold, processes placed before they can fork,
// counters that say which limit acted, groups emptied and removed, and a killed worker's groups removed by the next.
// cgroup v1 as root where this machine has it; v2's own steps (moving the worker to a leaf, cgroup.kill) on a cgroup2
// hierarchy, which on a hybrid machine has no controllers, so its limits are tested only where v2 holds them.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { detectCgroups, type CgroupSupport } from './detect.js';
import { placedArgv, removeDeadWorkersGroups, WorkerCgroups } from './groups.js';
import { readCgroupMounts } from './mounts.js';

const detected = detectCgroups('/sys/fs/cgroup');
const v1 = 'support' in detected && detected.support.version === 1 ? detected.support : undefined;
const v2Mount = readCgroupMounts('/sys/fs/cgroup').mounts.find((m) => m.version === 2);
const root = process.getuid?.() === 0;

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

const ends = new WeakMap<ChildProcess, Promise<{ code: number | null; out: string }>>();

/** Starts `argv` placed in the group's procs files (its output collected, its end awaited with `exited`). */
function placed(files: string[], argv: string[]): ChildProcess {
  const [file, ...args] = placedArgv(files, argv);
  const c = spawn(file!, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(c);
  let out = '';
  c.stdout.on('data', (d: Buffer) => (out += d.toString()));
  c.stderr.on('data', (d: Buffer) => (out += d.toString()));
  ends.set(
    c,
    new Promise((resolve) =>
      c.on('exit', (code, signal) =>
        resolve({
          code: code ?? 128 + (signal === 'SIGKILL' ? 9 : 0),
          get out() {
            return out;
          },
        }),
      ),
    ),
  );
  return c;
}

/** How it ended (137 for SIGKILL) and what it printed by then. */
const exited = (c: ChildProcess): Promise<{ code: number | null; out: string }> => ends.get(c)!;

const cgroupOf = (pid: number): string => readFileSync(`/proc/${pid}/cgroup`, 'utf8');

/** A pid no process has now (a process that ran and ended). */
const deadPid = (): number => spawnSync('true').pid!;

describe.skipIf(!v1 || !root)('cgroup v1 as root (this machine)', () => {
  it('holds a task to its process and memory limits, says which acted, and removes its group', async () => {
    const groups = WorkerCgroups.create(v1!, { memory: 2 * 1024 ** 3 });
    const task = groups.task('unit', { pids: 40, memory: 64 * 1024 ** 2 });
    try {
      const before = task.counters();
      const forks = placed(task.procsFiles, [
        'python3',
        '-c',
        'import os,sys,time\nn=0\ntry:\n  while n < 500:\n    if os.fork()==0:\n      os.close(1); os.close(2); time.sleep(30); os._exit(0)\n    n+=1\nexcept OSError as e: print(n, e.errno)\nsys.stdout.flush()',
      ]);
      const f = await exited(forks);
      await new Promise((r) => setTimeout(r, 100)); // its last output
      const [started, errno] = f.out.trim().split(' ').map(Number);
      expect(errno).toBe(11); // EAGAIN: the fork refused at pids.max
      expect(started).toBeLessThan(40);
      const after = task.counters();
      expect(after.pidsRefused).toBeGreaterThan(before.pidsRefused);
      expect(after.oomKills).toBe(before.oomKills);
      // Another task has limits of its own: its memory, not the first task's processes, stops it.
      const other = groups.task('unit-memory', { pids: 40, memory: 64 * 1024 ** 2 });
      try {
        const hog = placed(other.procsFiles, ['python3', '-c', 'b = bytearray(256 * 1024 * 1024); print(len(b))']);
        expect((await exited(hog)).code).toBe(137);
        expect(other.counters()).toEqual({ oomKills: 1, pidsRefused: 0 });
      } finally {
        await other.close();
      }
    } finally {
      await task.close();
    }
    // The sleeping children are killed with the group, which is gone.
    for (const f of task.procsFiles) expect(existsSync(f)).toBe(false);
    await groups.close();
  }, 60_000);

  it('puts a process in the group before it runs anything, so its children are in it too', async () => {
    const groups = WorkerCgroups.create(v1!, { memory: 2 * 1024 ** 3 });
    const task = groups.task('placed', { pids: 64, memory: 128 * 1024 ** 2 });
    const c = placed(task.procsFiles, ['sh', '-c', 'sleep 30 & cat /proc/$!/cgroup; wait']);
    let out = '';
    c.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    for (let i = 0; i < 100 && !out.includes('pids:'); i += 1) await new Promise((r) => setTimeout(r, 50));
    expect(out).toMatch(/pids:\/.*\/task-1-placed/);
    expect(out).toMatch(/memory:\/.*\/task-1-placed/);
    await task.close();
    expect((await exited(c)).code).toBe(137);
    await groups.close();
  }, 30_000);

  it('removes the groups a killed worker left, and what still runs in them', async () => {
    const dead = deadPid();
    const made = [...new Set(v1!.bases.values())].map((b) => join(b, `tether-${dead}-0badc0de`, 'task-1-left'));
    for (const d of made) mkdirSync(d, { recursive: true });
    const c = placed(
      made.map((d) => join(d, 'cgroup.procs')),
      ['sleep', '60'],
    );
    await new Promise((r) => setTimeout(r, 200));
    expect(cgroupOf(c.pid!)).toMatch(/task-1-left/);
    expect(await removeDeadWorkersGroups(v1!)).toBeGreaterThanOrEqual(1);
    for (const d of made) expect(existsSync(d)).toBe(false);
    expect((await exited(c)).code).toBe(137);
  });
});

describe.skipIf(!v2Mount || !root)('cgroup v2 steps (on this machine: a v2 hierarchy without controllers)', () => {
  it('moves what shares the worker’s cgroup to a leaf, places a task, kills it with cgroup.kill and removes it', async () => {
    // A cgroup of its own standing for "the worker's own cgroup", with a process in it as the worker would be.
    const base = join(v2Mount!.mountPoint, `tether-test-${process.pid}`);
    mkdirSync(base);
    try {
      const resident = placed([join(base, 'cgroup.procs')], ['sleep', '60']);
      await new Promise((r) => setTimeout(r, 200));
      const support: CgroupSupport = { version: 2, base, controllers: [], mountPoint: v2Mount!.mountPoint };
      const groups = WorkerCgroups.create(support, { memory: 2 ** 30 });
      expect(cgroupOf(resident.pid!)).toMatch(new RegExp(`^0::/tether-test-${process.pid}/tether-worker$`, 'm'));
      const task = groups.task('v2', { pids: 64, memory: 2 ** 27 });
      const c = placed(task.procsFiles, ['sh', '-c', 'sleep 60 & wait']);
      await new Promise((r) => setTimeout(r, 200));
      expect(cgroupOf(c.pid!)).toMatch(/^0::\/tether-test-\d+\/tether-\d+-[0-9a-f]+\/task-1-v2$/m);
      expect(task.counters()).toEqual({ oomKills: 0, pidsRefused: 0 });
      await task.close();
      expect((await exited(c)).code).toBe(137);
      for (const f of task.procsFiles) expect(existsSync(f)).toBe(false);
      // A group named for a dead worker, with a process still in it, goes at the next start.
      const left = join(base, `tether-${deadPid()}-0badc0de`, 'task-1-left');
      mkdirSync(left, { recursive: true });
      const stray = placed([join(left, 'cgroup.procs')], ['sleep', '60']);
      await new Promise((r) => setTimeout(r, 200));
      expect(await removeDeadWorkersGroups(support)).toBe(1);
      expect(existsSync(left)).toBe(false);
      expect((await exited(stray)).code).toBe(137);
      await groups.close();
      resident.kill('SIGKILL');
      await exited(resident);
    } finally {
      for (const d of [join(base, 'tether-worker'), base])
        try {
          rmdirSync(d);
        } catch {
          // left for the machine's owner to see: a failed test
        }
    }
  }, 30_000);
});

describe('detecting the cgroup mechanism', () => {
  it('says why there is none where no cgroup file system is mounted (TETHER_CGROUP_ROOT elsewhere)', () => {
    const empty = mkdtempSync(join(tmpdir(), 'tether-no-cgroups-'));
    const d = detectCgroups(empty);
    expect(d).toEqual({ none: `no cgroup file system is mounted under ${empty}` });
  });

  it.skipIf(!v2Mount || v2Mount.mountPoint === '/sys/fs/cgroup')(
    'a v2 hierarchy without the memory and pids controllers is not taken for one (a hybrid machine)',
    () => {
      const d = detectCgroups(v2Mount!.mountPoint);
      expect('none' in d && d.none).toMatch(
        /cgroup v2 at .*: the worker's cgroup \/.* offers no memory or pids controller/,
      );
    },
  );
});
