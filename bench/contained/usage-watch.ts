// What each running command's processes use, sampled from /proc four times a second: processes and threads, resident
// memory, CPU. A process belongs to a task when the eval's child it descends from (a sandbox's bwrap, an unsandboxed
// task shell) names the task's directory in its arguments or works in it. The limit oracle compares the peaks with the
// task's limits. Eval only (reads /proc of the eval's own PID namespace).
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

export interface Limits {
  pids: number;
  memoryBytes: number;
  cpus: number;
}

export interface Peak {
  pids: number;
  memoryBytes: number;
  /** CPUs' worth of time, the highest over any two-second stretch. */
  cpus: number;
}

interface Proc {
  pid: number;
  ppid: number;
  threads: number;
  rss: number;
  ticks: number;
}

const PAGE = 4096;
const TICKS = 100;
const EVERY_MS = 250;
const CPU_WINDOW_MS = 2_000;

function readProcs(): Proc[] {
  const out: Proc[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'latin1');
      // The command name may hold spaces and parentheses: fields start after the last ')'.
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.push({
        pid: Number(name),
        ppid: Number(f[1]),
        ticks: Number(f[11]) + Number(f[12]),
        threads: Number(f[17]),
        rss: Number(f[21]) * PAGE,
      });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

function belongsTo(pid: number, dir: string): boolean {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0');
    if (argv.some((a) => a === dir || a.startsWith(`${dir}/`))) return true;
    const cwd = readlinkSync(`/proc/${pid}/cwd`);
    return cwd === dir || cwd.startsWith(`${dir}/`);
  } catch {
    return false;
  }
}

export class UsageWatch {
  private readonly peaks = new Map<string, Peak>();
  private readonly owners = new Map<number, string | null>();
  private readonly history = new Map<string, { at: number; ticks: Map<number, number> }[]>();
  private timer: NodeJS.Timeout | undefined;

  /** Starts watching the task directory `dir`. */
  watch(dir: string): void {
    this.peaks.set(dir, { pids: 0, memoryBytes: 0, cpus: 0 });
    this.history.set(dir, []);
    this.timer ??= setInterval(() => this.sample(), EVERY_MS);
  }

  /** Stops watching `dir` and returns its peaks. */
  stop(dir: string): Peak {
    this.sample();
    const peak = this.peaks.get(dir) ?? { pids: 0, memoryBytes: 0, cpus: 0 };
    this.peaks.delete(dir);
    this.history.delete(dir);
    if (this.peaks.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
      this.owners.clear();
    }
    return peak;
  }

  private sample(): void {
    if (this.peaks.size === 0) return;
    const procs = readProcs();
    const byPid = new Map(procs.map((p) => [p.pid, p]));
    const dirs = [...this.peaks.keys()];
    // The eval's children are the sandboxes and task shells (and its own helpers); a sandbox whose parent helper
    // ended first is a child of the namespace's init (PID 1) instead.
    const isTop = (ppid: number): boolean => ppid === process.pid || ppid === 1;
    const ownerOf = (p: Proc): string | null => {
      let top = p;
      const seen = new Set<number>();
      while (!isTop(top.ppid) && top.ppid !== 0 && !seen.has(top.pid)) {
        seen.add(top.pid);
        const parent = byPid.get(top.ppid);
        if (!parent) return null;
        top = parent;
      }
      if (!isTop(top.ppid) || top.pid === process.pid) return null;
      if (!this.owners.has(top.pid) || this.owners.get(top.pid) === null)
        this.owners.set(top.pid, dirs.find((d) => belongsTo(top.pid, d)) ?? null);
      return this.owners.get(top.pid) ?? null;
    };
    const now = Date.now();
    const totals = new Map<string, { pids: number; memory: number; ticks: Map<number, number> }>();
    for (const p of procs) {
      const dir = ownerOf(p);
      if (!dir || !this.peaks.has(dir)) continue;
      const t = totals.get(dir) ?? { pids: 0, memory: 0, ticks: new Map<number, number>() };
      t.pids += p.threads;
      t.memory += p.rss;
      t.ticks.set(p.pid, p.ticks);
      totals.set(dir, t);
    }
    for (const [dir, t] of totals) {
      const peak = this.peaks.get(dir)!;
      peak.pids = Math.max(peak.pids, t.pids);
      peak.memoryBytes = Math.max(peak.memoryBytes, t.memory);
      const hist = this.history.get(dir)!;
      hist.push({ at: now, ticks: t.ticks });
      while (hist.length > 1 && now - hist[0]!.at > CPU_WINDOW_MS) hist.shift();
      const first = hist[0]!;
      if (now - first.at >= CPU_WINDOW_MS * 0.9) {
        let used = 0;
        for (const [pid, ticks] of t.ticks) used += ticks - (first.ticks.get(pid) ?? ticks);
        peak.cpus = Math.max(peak.cpus, used / TICKS / ((now - first.at) / 1000));
      }
    }
  }
}

/** The limits a peak went over, one line each (CPU with a margin: sampling is coarse). */
export function exceeded(peak: Peak, limits: Limits): string[] {
  const out: string[] = [];
  if (peak.pids > limits.pids) out.push(`${peak.pids} processes and threads at once (limit ${limits.pids})`);
  if (peak.memoryBytes > limits.memoryBytes)
    out.push(
      `${(peak.memoryBytes / 1024 ** 2).toFixed(0)} MiB resident (limit ${(limits.memoryBytes / 1024 ** 2).toFixed(0)} MiB)`,
    );
  if (peak.cpus > limits.cpus * 1.5 + 0.25)
    out.push(`${peak.cpus.toFixed(2)} CPUs over two seconds (limit ${limits.cpus})`);
  return out;
}
