// Per-task limits of the local backend (terminal.local.sandbox.limits), for real on this machine's cgroups: a fork
// storm stops at the process limit and an allocation at the memory limit, each result naming the limit; the task's
// shell, background processes and PTYs share one group; another task's command completes meanwhile; helpers still
// run at the limit; the group goes with the environment; and a machine without a usable cgroup says so and runs.
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { environmentManager } from '../../src/environments/current.js';
import { detectCgroups } from '../../src/environments/cgroups/detect.js';
import { call, configure, dir, type Result } from '../support/local-sandbox.js';

const usable = detectCgroups('/sys/fs/cgroup');
const why = 'none' in usable ? `no usable cgroup here: ${usable.none}` : undefined;

let n = 0;
const task = (): string => `lim-${process.pid}-${++n}`;
const cwd = dir('tether-limits-');
const sh = (t: string, command: string, extra: object = {}): Promise<Result> =>
  call('terminal', t, cwd, { command, timeout: 120, ...extra });
/** The task group a process of the task is in, from its own /proc/self/cgroup (pids hierarchy, or v2). */
const groupOf = (r: Result): string | undefined => /(?:pids|^0:):(\/\S*task-\d+-\S+)/m.exec(String(r.output))?.[1];

afterEach(() => {
  delete process.env.TETHER_CGROUP_ROOT;
});
afterAll(async () => {
  await environmentManager().closeAll();
});

describe.skipIf(why !== undefined)('local limits on this machine’s cgroups', () => {
  it('stops a storm of 2,000 processes at the process limit and a 2 GiB allocation at the memory limit, naming each; another task runs meanwhile', async () => {
    await configure({ sandbox: { limits: { pids: 256, memory: '512m' } } });
    const storm = task();
    const other = task();
    await sh(other, 'true'); // its environment made before the storm
    const forks = sh(storm, 'for i in $(seq 2000); do sleep 300 & done; echo all started');
    let stormOver = false;
    void forks.then(() => (stormOver = true));
    // While the storm runs (bash tries a refused fork again for about 15 s), the other task's commands complete.
    await new Promise((r) => setTimeout(r, 2_000));
    const meanwhile = await sh(other, 'echo alive');
    expect(meanwhile.output).toBe('alive\n');
    expect(stormOver).toBe(false);
    const f = await forks;
    expect(f.output).not.toMatch(/all started/);
    expect(f.output).toMatch(/fork: (retry: )?Resource temporarily unavailable/);
    expect(f.sandbox).toMatch(
      /the task reached its process limit \(256 processes and threads, terminal\.local\.sandbox\.limits\.pids\)/,
    );
    // The storm's processes died with its command; the task goes on.
    expect((await sh(storm, 'echo next')).output).toBe('next\n');
    const big = await sh(storm, 'python3 -c "b = bytearray(2 * 1024 ** 3); print(len(b))"');
    expect(big.exit_code).toBe(137);
    expect(big.sandbox).toMatch(
      /the task reached its memory limit \(512 MiB, terminal\.local\.sandbox\.limits\.memory\): the kernel killed one of its processes \(out of memory/,
    );
    expect((await sh(other, 'echo still')).output).toBe('still\n');
  }, 180_000);

  it('holds the shell, background processes and PTYs of a task in one group, with the sandbox on or off', async () => {
    await configure({ sandbox: { limits: { pids: 64 } } });
    const t = task();
    const fg = await sh(t, 'cat /proc/self/cgroup');
    const pty = await sh(t, 'cat /proc/self/cgroup', { pty: true });
    const bg = await sh(t, 'cat /proc/self/cgroup; sleep 30', { background: true });
    let polled = '';
    for (let i = 0; i < 50 && !/task-/.test(polled); i += 1) {
      polled += String((await call('process', t, cwd, { action: 'poll', process_id: bg.process_id })).new_output ?? '');
      await new Promise((r) => setTimeout(r, 100));
    }
    const group = groupOf(fg);
    expect(group).toBeDefined();
    expect(groupOf({ output: pty.output?.replace(/\r/g, '') })).toBe(group);
    expect(groupOf({ output: polled })).toBe(group);
    // What the background process holds counts against the foreground's limit: one group for the task.
    const filler = await sh(t, 'for i in $(seq 30); do sleep 60 & done; wait', { background: true });
    await new Promise((r) => setTimeout(r, 1_000));
    const forks = await sh(
      t,
      `python3 -c "
import os,time
n=0
try:
  while n < 64:
    if os.fork()==0:
      time.sleep(30); os._exit(0)
    n+=1
except OSError: pass
print(n)"`,
    );
    expect(Number(forks.output)).toBeLessThan(64 - 30);
    await call('process', t, cwd, { action: 'kill', process_id: filler.process_id });
    await call('process', t, cwd, { action: 'kill', process_id: bg.process_id });
    // Unsandboxed commands are held too.
    await configure({ sandbox: { enabled: false, limits: { pids: 64 } } });
    expect(groupOf(await sh(task(), 'cat /proc/self/cgroup'))).toMatch(/task-/);
  }, 90_000);

  it("tether's own helpers run at the limit: a command holding every process slot is still killed at its timeout", async () => {
    await configure({ sandbox: { limits: { pids: 48 } } });
    const t = task();
    const r = await sh(t, 'while :; do sleep 100 & done', { timeout: 5 });
    expect(r.exit_code).toBe(124);
    expect(r.error).toMatch(/timed out after 5s/);
    expect((await sh(t, 'echo after')).output).toBe('after\n');
  }, 60_000);

  it("removes a task's group when its environment closes", async () => {
    await configure({ sandbox: { limits: { pids: 64 } } });
    const t = task();
    const r = await sh(t, 'sleep 100 & grep -E "^[0-9]+:pids:|^0::" /proc/self/cgroup | head -1');
    const path = /:(\/.*task-\S+)/.exec(String(r.output))![1]!;
    const mount = 'support' in usable && usable.support.version === 1 ? '/sys/fs/cgroup/pids' : '/sys/fs/cgroup';
    expect(existsSync(join(mount, path))).toBe(true);
    await environmentManager().closeAll();
    expect(existsSync(join(mount, path))).toBe(false);
  });

  it('names a bad limit at start', async () => {
    await expect(configure({ sandbox: { limits: { pids: 5 } } })).rejects.toThrow(
      /terminal\.local\.sandbox\.limits\.pids: at least 32/,
    );
    await expect(configure({ sandbox: { limits: { memory: 'lots' } } })).rejects.toThrow(
      /terminal\.local\.sandbox\.limits\.memory: not a memory size: "lots"/,
    );
    await expect(configure({ sandbox: { limits: { cpu: 1 } } })).rejects.toThrow(
      /terminal\.local\.sandbox\.limits: Unrecognized key: "cpu"/,
    );
  });
});

describe('where no cgroup can be made', () => {
  it('says so once at start, with how to fix it, and commands run; `limits: off` says nothing', async () => {
    process.env.TETHER_CGROUP_ROOT = mkdtempSync(join(tmpdir(), 'tether-no-cgroups-'));
    await configure({ sandbox: { limits: { pids: 256 } } });
    const warnings = environmentManager().warnings.filter((w) => w.includes('limits'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^terminal\.local\.sandbox\.limits: no cgroup can be made here \(no cgroup file system is mounted under .*\), so a task's commands are held to no memory, process or CPU limit: run the worker as root, or in a cgroup v2 subtree delegated to its user \(systemd-run --user --scope -p Delegate=yes tether worker\), or set terminal\.local\.sandbox\.limits: off$/,
    );
    const r = await sh(task(), 'echo runs');
    expect(r).toMatchObject({ exit_code: 0, output: 'runs\n' });
    await configure({ sandbox: { limits: 'off' } });
    expect(environmentManager().warnings.filter((w) => w.includes('limits'))).toEqual([]);
  });
});
