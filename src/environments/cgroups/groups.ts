// The cgroups that hold a worker's tasks: one group per worker (`tether-<pid>-<random>` in the worker's own cgroup,
// capping all its tasks' memory and weighting their CPU below the worker's) and one per task inside it, with that
// task's limits; how a task's processes are put in it, what its counters say, and how it is emptied and removed,
// also when a killed worker left it. Worker-only (writes cgroup files, sends signals).
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pidAlive } from '../tether-labels.js';
import type { CgroupSupport } from './detect.js';
import {
  COUNTER_FILES,
  counterOf,
  OPTIONAL_FILES,
  sharedFiles,
  taskFiles,
  type Controller,
  type LimitCounters,
  type LimitFile,
  type SharedLimits,
  type TaskLimits,
} from './files.js';

/** A worker's group is named for its pid, so that a later worker can tell whether it is gone (removeDeadWorkersGroups). */
const NAMED = /^tether-(\d+)-[0-9a-f]+$/;

/** v2: where the worker's processes go when its own cgroup is to hold groups (a cgroup with children holds no processes). */
const LEAF = 'tether-worker';

function write(dir: string, f: LimitFile): void {
  try {
    writeFileSync(join(dir, f.file), f.value);
  } catch (err) {
    if (OPTIONAL_FILES.has(f.file) && !existsSync(join(dir, f.file))) return;
    throw new Error(`cannot write ${f.value} to ${join(dir, f.file)}: ${(err as Error).message}`);
  }
}

function procsOf(dir: string): number[] {
  try {
    return readFileSync(join(dir, 'cgroup.procs'), 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map(Number)
      .filter((p) => p > 0);
  } catch {
    return [];
  }
}

/**
 * Kills every process in the groups, again until none is left (a process forking while it dies). v2's cgroup.kill
 * does it in one write where the kernel has it (5.14).
 */
function killAll(dirs: readonly string[]): void {
  for (const d of dirs) {
    if (existsSync(join(d, 'cgroup.kill'))) {
      try {
        writeFileSync(join(d, 'cgroup.kill'), '1');
      } catch {
        // fall back to signals below
      }
    }
  }
  for (let round = 0; round < 20; round += 1) {
    const pids = [...new Set(dirs.flatMap(procsOf))];
    if (pids.length === 0) return;
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}

/** Removes a group directory once its processes are gone (the kernel refuses while a dying one is still counted). */
async function removeDir(dir: string): Promise<void> {
  for (let i = 0; i < 50; i += 1) {
    try {
      rmdirSync(dir);
      return;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return;
      if (code !== 'EBUSY') throw err;
    }
    killAll([dir]);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A group: one directory in each hierarchy, and which of them holds each controller. */
interface Dirs {
  all: string[];
  byController: ReadonlyMap<Controller, string>;
}

/**
 * `argv` started inside a group: a short `sh` writes its own pid to each hierarchy's cgroup.procs, then becomes the
 * command, so that nothing the command starts is ever outside. A write that fails (the group removed) stops it with
 * exit code 125 and the shell's reason.
 */
export function placedArgv(procsFiles: readonly string[], argv: readonly string[]): string[] {
  const place = 'n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1" || exit 125; n=$((n-1)); shift; done; exec "$@"';
  return ['/bin/sh', '-c', place, 'tether-limits', String(procsFiles.length), ...procsFiles, ...argv];
}

/** One task's group (a directory per hierarchy). */
export class TaskCgroup {
  constructor(
    private readonly version: 1 | 2,
    private readonly dirs: Dirs,
    readonly limits: TaskLimits,
  ) {}

  /** The cgroup.procs files a process writes its pid to, to join the task (one per hierarchy). */
  get procsFiles(): string[] {
    return this.dirs.all.map((d) => join(d, 'cgroup.procs'));
  }

  /** The counters of limits reached so far. */
  counters(): LimitCounters {
    const files = COUNTER_FILES[this.version];
    const read = (c: Controller, file: string): string => {
      const dir = this.dirs.byController.get(c);
      try {
        return dir ? readFileSync(join(dir, file), 'utf8') : '';
      } catch {
        return '';
      }
    };
    return {
      oomKills: counterOf(read('memory', files.oom), 'oom_kill'),
      pidsRefused: counterOf(read('pids', files.pids), 'max'),
    };
  }

  /** Kills what is still in it and removes it. */
  async close(): Promise<void> {
    killAll(this.dirs.all);
    for (const d of this.dirs.all) await removeDir(d).catch(() => undefined);
  }
}

/** The group of all of this worker's tasks. */
export class WorkerCgroups {
  private tasks = 0;

  private constructor(
    readonly support: CgroupSupport,
    private readonly dirs: Dirs,
  ) {}

  /**
   * Makes the worker's group in its own cgroup. With v2 the own cgroup must first hold no processes (a cgroup that
   * hands controllers to its children may not): the worker, and whatever shares its cgroup, move to a leaf beside.
   */
  static create(support: CgroupSupport, shared: SharedLimits): WorkerCgroups {
    const name = `tether-${process.pid}-${randomBytes(4).toString('hex')}`;
    let dirs: Dirs;
    if (support.version === 2) {
      const { base } = support;
      if (base !== support.mountPoint) {
        const leaf = join(base, LEAF);
        mkdirSync(leaf, { recursive: true });
        for (let round = 0; round < 20 && procsOf(base).length > 0; round += 1)
          for (const pid of procsOf(base)) {
            try {
              writeFileSync(join(leaf, 'cgroup.procs'), String(pid));
            } catch {
              // ended meanwhile, or a kernel thread
            }
          }
      }
      const enable = support.controllers.map((c) => `+${c}`).join(' ');
      if (enable) writeFileSync(join(base, 'cgroup.subtree_control'), enable);
      const dir = join(base, name);
      mkdirSync(dir);
      if (enable) writeFileSync(join(dir, 'cgroup.subtree_control'), enable);
      dirs = { all: [dir], byController: new Map(support.controllers.map((c) => [c, dir])) };
    } else {
      const byController = new Map<Controller, string>();
      for (const [c, base] of support.bases) byController.set(c, join(base, name));
      for (const dir of new Set(byController.values())) mkdirSync(dir, { recursive: true });
      dirs = { all: [...new Set(byController.values())], byController };
    }
    const groups = new WorkerCgroups(support, dirs);
    for (const f of sharedFiles(support.version, shared, groups.controllers))
      write(dirs.byController.get(f.controller)!, f);
    return groups;
  }

  /** The controllers this machine gives tether (cpu may be missing: then `cpus` cannot be held). */
  get controllers(): ReadonlySet<Controller> {
    return new Set(this.dirs.byController.keys());
  }

  /** A new group for one task, with its limits written. Throws with the file that could not be written. */
  task(label: string, limits: TaskLimits): TaskCgroup {
    this.tasks += 1;
    const name = `task-${this.tasks}-${label.replace(/[^a-zA-Z0-9_.-]+/g, '-').slice(0, 40)}`;
    const below = new Map(this.dirs.all.map((d) => [d, join(d, name)]));
    for (const dir of below.values()) mkdirSync(dir);
    const byController = new Map([...this.dirs.byController].map(([c, d]) => [c, below.get(d)!]));
    const group = new TaskCgroup(this.support.version, { all: [...below.values()], byController }, limits);
    try {
      for (const f of taskFiles(this.support.version, limits, this.controllers))
        write(byController.get(f.controller)!, f);
    } catch (err) {
      void group.close();
      throw err;
    }
    return group;
  }

  /** Removes the worker's group and every task group still in it (a new configuration replaced it). */
  async close(): Promise<void> {
    for (const dir of this.dirs.all) await removeTree(dir);
  }

  /** At the worker's exit: its group goes when its tasks' groups are gone; if not, the next worker removes it. */
  removeIfEmpty(): void {
    for (const dir of this.dirs.all) {
      try {
        rmdirSync(dir);
      } catch {
        // a task group still there (a killed environment): removeDeadWorkersGroups at the next start
      }
    }
  }
}

/** A group and its task groups: emptied, then removed from the bottom up. */
async function removeTree(dir: string): Promise<void> {
  let children: string[] = [];
  try {
    children = readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => join(dir, e.name));
  } catch {
    return;
  }
  for (const c of children) await removeTree(c);
  killAll([dir]);
  await removeDir(dir).catch(() => undefined);
}

/**
 * At worker start: the groups that killed workers left in this worker's own cgroup (named for their pid, which is
 * gone), their processes killed and the groups removed. Returns how many.
 */
export async function removeDeadWorkersGroups(support: CgroupSupport): Promise<number> {
  let removed = 0;
  const bases = support.version === 2 ? [support.base] : [...new Set(support.bases.values())];
  for (const base of bases) {
    let names: string[];
    try {
      names = readdirSync(base);
    } catch {
      continue;
    }
    for (const name of names) {
      const pid = Number(NAMED.exec(name)?.[1]);
      if (!pid || pid === process.pid || pidAlive(pid)) continue;
      await removeTree(join(base, name));
      if (!existsSync(join(base, name))) removed += 1;
    }
  }
  return removed;
}
