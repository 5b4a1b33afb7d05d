// What each limit is written as in cgroup v1 and v2, and how the kernel's counters of limits reached read: pure
// tables and parsers, no I/O. Worker-only.

export type Controller = 'memory' | 'pids' | 'cpu';

/** The limits of one task, resolved (numbers, no defaults left). */
export interface TaskLimits {
  /** Processes and threads at once. */
  pids: number;
  /** Bytes of memory, swap included. */
  memory: number;
  /** CPUs' worth of time per period; undefined: every CPU, weighted only. */
  cpus?: number;
}

/** What all tasks of one worker share: a memory cap and a CPU weight below the worker's own. */
export interface SharedLimits {
  memory: number;
}

export interface LimitFile {
  controller: Controller;
  file: string;
  value: string;
}

/** CFS period: 100 ms, the kernel's default. */
const PERIOD_US = 100_000;
/**
 * The tasks' CPU weight, against 1024 (v1) or 100 (v2) for the worker's own process and everything else on the
 * machine: under contention all of a worker's tasks together get half a process's share, so a spinning task cannot
 * slow the worker's answers down; with CPUs to spare they use them all.
 */
const V1_SHARES = 512;
const V2_WEIGHT = 50;

/** The files of the group that holds all of a worker's tasks, in order. */
export function sharedFiles(version: 1 | 2, s: SharedLimits, has: ReadonlySet<Controller>): LimitFile[] {
  return sharedAll(version, s, has).filter((f) => has.has(f.controller));
}

function sharedAll(version: 1 | 2, s: SharedLimits, has: ReadonlySet<Controller>): LimitFile[] {
  const out: LimitFile[] = [];
  if (version === 1) {
    out.push({ controller: 'memory', file: 'memory.limit_in_bytes', value: String(s.memory) });
    if (has.has('cpu')) out.push({ controller: 'cpu', file: 'cpu.shares', value: String(V1_SHARES) });
  } else {
    out.push({ controller: 'memory', file: 'memory.max', value: String(s.memory) });
    if (has.has('cpu')) out.push({ controller: 'cpu', file: 'cpu.weight', value: String(V2_WEIGHT) });
  }
  return out;
}

/**
 * The files of one task's group, in order. Swap counts as memory (v1's memsw limit is written after the memory one,
 * which it may not be below; v2 gives the task no swap), as Docker's `--memory` does with `--memory-swap` equal.
 */
export function taskFiles(version: 1 | 2, l: TaskLimits, has: ReadonlySet<Controller>): LimitFile[] {
  return taskAll(version, l, has).filter((f) => has.has(f.controller));
}

function taskAll(version: 1 | 2, l: TaskLimits, has: ReadonlySet<Controller>): LimitFile[] {
  const out: LimitFile[] = [];
  if (version === 1) {
    out.push({ controller: 'memory', file: 'memory.limit_in_bytes', value: String(l.memory) });
    out.push({ controller: 'memory', file: 'memory.memsw.limit_in_bytes', value: String(l.memory) });
    out.push({ controller: 'pids', file: 'pids.max', value: String(l.pids) });
    if (l.cpus !== undefined && has.has('cpu')) {
      out.push({ controller: 'cpu', file: 'cpu.cfs_period_us', value: String(PERIOD_US) });
      out.push({
        controller: 'cpu',
        file: 'cpu.cfs_quota_us',
        value: String(Math.max(1000, Math.round(l.cpus * PERIOD_US))),
      });
    }
  } else {
    out.push({ controller: 'memory', file: 'memory.max', value: String(l.memory) });
    out.push({ controller: 'memory', file: 'memory.swap.max', value: '0' });
    out.push({ controller: 'pids', file: 'pids.max', value: String(l.pids) });
    if (l.cpus !== undefined && has.has('cpu'))
      out.push({
        controller: 'cpu',
        file: 'cpu.max',
        value: `${Math.max(1000, Math.round(l.cpus * PERIOD_US))} ${PERIOD_US}`,
      });
  }
  return out;
}

/** Files a kernel may lack (no swap accounting): a failed write of one of these is not a failure. */
export const OPTIONAL_FILES = new Set(['memory.memsw.limit_in_bytes', 'memory.swap.max']);

/** The counters of limits reached: processes the OOM killer killed, and process creations refused at pids.max. */
export interface LimitCounters {
  oomKills: number;
  pidsRefused: number;
}

/** `key value` lines (memory.events, memory.oom_control, pids.events): the value of `key`, 0 when absent. */
export function counterOf(text: string, key: string): number {
  const m = new RegExp(`^${key} (\\d+)$`, 'm').exec(text);
  return m ? Number(m[1]) : 0;
}

/** Where the counters are: the OOM kills (v1 memory.oom_control, v2 memory.events) and pids.events's `max`. */
export const COUNTER_FILES: Readonly<Record<1 | 2, { oom: string; pids: string }>> = {
  1: { oom: 'memory.oom_control', pids: 'pids.events' },
  2: { oom: 'memory.events', pids: 'pids.events' },
};

/** A size as a person reads it (512 MiB, 2 GiB). */
const mib = (bytes: number): string =>
  bytes >= 1024 ** 3 && bytes % 1024 ** 3 === 0 ? `${bytes / 1024 ** 3} GiB` : `${Math.round(bytes / 1024 ** 2)} MiB`;

/**
 * What the model and a person are told when a task's limits acted during a command (the counters' growth): which
 * limit, its value, and the setting, so that exit code 137 is never left to be guessed.
 */
export function limitNotes(
  before: LimitCounters,
  after: LimitCounters,
  l: TaskLimits,
  setting = 'terminal.local.sandbox.limits',
): string[] {
  const notes: string[] = [];
  const killed = after.oomKills - before.oomKills;
  if (killed > 0)
    notes.push(
      `the task reached its memory limit (${mib(l.memory)}, ${setting}.memory): the kernel killed ${killed === 1 ? 'one' : killed} of its processes (out of memory; a process killed so exits with 137, SIGKILL)`,
    );
  const refused = after.pidsRefused - before.pidsRefused;
  if (refused > 0)
    notes.push(
      `the task reached its process limit (${l.pids} processes and threads, ${setting}.pids): ${refused === 1 ? 'an attempt' : `${refused} attempts`} to start another failed ("Resource temporarily unavailable")`,
    );
  return notes;
}
