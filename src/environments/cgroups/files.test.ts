// What each limit is written as in cgroup v1 and v2, how the kernel's counters read, and what the model is told.
import { describe, expect, it } from 'vitest';
import { counterOf, limitNotes, sharedFiles, taskFiles, type Controller } from './files.js';

const ALL = new Set<Controller>(['memory', 'pids', 'cpu']);
const NO_CPU = new Set<Controller>(['memory', 'pids']);
const flat = (files: { file: string; value: string }[]): string[] => files.map((f) => `${f.file}=${f.value}`);

describe('cgroup limit files', () => {
  it.each([
    [
      1,
      { pids: 256, memory: 512 * 1024 ** 2, cpus: 1.5 },
      ALL,
      [
        'memory.limit_in_bytes=536870912',
        'memory.memsw.limit_in_bytes=536870912',
        'pids.max=256',
        'cpu.cfs_period_us=100000',
        'cpu.cfs_quota_us=150000',
      ],
    ],
    [
      2,
      { pids: 256, memory: 512 * 1024 ** 2, cpus: 0.5 },
      ALL,
      ['memory.max=536870912', 'memory.swap.max=0', 'pids.max=256', 'cpu.max=50000 100000'],
    ],
    // Without a cpu controller, no CPU time limit can be written (the worker said so at start).
    [
      2,
      { pids: 1024, memory: 2 ** 30, cpus: 2 },
      NO_CPU,
      ['memory.max=1073741824', 'memory.swap.max=0', 'pids.max=1024'],
    ],
    // Without `cpus`, every CPU: only the shared weight applies.
    [
      1,
      { pids: 1024, memory: 2 ** 30 },
      ALL,
      ['memory.limit_in_bytes=1073741824', 'memory.memsw.limit_in_bytes=1073741824', 'pids.max=1024'],
    ],
  ] as const)('v%i task %j with %o', (version, limits, has, expected) => {
    expect(flat(taskFiles(version, limits, has))).toEqual(expected);
  });

  it('caps all tasks of a worker together and weights them below the worker', () => {
    expect(flat(sharedFiles(1, { memory: 3 * 2 ** 30 }, ALL))).toEqual([
      'memory.limit_in_bytes=3221225472',
      'cpu.shares=512',
    ]);
    expect(flat(sharedFiles(2, { memory: 3 * 2 ** 30 }, ALL))).toEqual(['memory.max=3221225472', 'cpu.weight=50']);
    expect(flat(sharedFiles(2, { memory: 2 ** 30 }, new Set()))).toEqual([]);
  });

  it('reads the counters of limits reached from the files as the kernel writes them', () => {
    expect(counterOf('oom_kill_disable 0\nunder_oom 0\noom_kill 3\n', 'oom_kill')).toBe(3);
    expect(counterOf('low 0\nhigh 0\nmax 12\noom 2\noom_kill 2\noom_group_kill 0\n', 'oom_kill')).toBe(2);
    expect(counterOf('max 7\n', 'max')).toBe(7);
    expect(counterOf('', 'max')).toBe(0);
  });

  it('names the limit that acted, never a bare exit code; says nothing when none did', () => {
    const l = { pids: 256, memory: 512 * 1024 ** 2 };
    expect(limitNotes({ oomKills: 1, pidsRefused: 4 }, { oomKills: 1, pidsRefused: 4 }, l)).toEqual([]);
    const [memory, pids] = limitNotes({ oomKills: 0, pidsRefused: 0 }, { oomKills: 1, pidsRefused: 3 }, l);
    expect(memory).toMatch(/memory limit \(512 MiB, terminal\.local\.sandbox\.limits\.memory\).*killed one .*137/);
    expect(pids).toMatch(
      /process limit \(256 processes and threads, terminal\.local\.sandbox\.limits\.pids\): 3 attempts/,
    );
  });
});
