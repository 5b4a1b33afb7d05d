// `terminal.local.sandbox.limits` (pids, memory, cpus per task), their defaults, and the worker's cgroups that
// enforce them: detected and made once when the worker starts (or when a task first needs them), with one warning
// line where no cgroup can be made. Worker-only.
import { readFileSync } from 'node:fs';
import { totalmem } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { parseMemory } from '../docker/settings.js';
import { basesOf, detectCgroups, type CgroupSupport } from '../../cgroups/detect.js';
import type { SharedLimits, TaskLimits } from '../../cgroups/files.js';
import { removeDeadWorkersGroups, WorkerCgroups, type TaskCgroup } from '../../cgroups/groups.js';

/** A task's processes and threads at once: room for builds (make -j, test runners) far above a fork storm's reach. */
const DEFAULT_PIDS = 1024;
/** Fewer would leave no room for the sandbox's own processes (bwrap, the task shell, its watchdog). */
const MIN_PIDS = 32;
const MIN_MEMORY = 32 * 1024 ** 2;
/** Of the memory the worker may use: one task at most half, all of a worker's tasks together three quarters. */
const TASK_SHARE = 0.5;
const SHARED_SHARE = 0.75;

const memory = z.union([z.number().int().positive(), z.string()]).transform((value, ctx) => {
  try {
    const bytes = parseMemory(value);
    if (bytes >= MIN_MEMORY) return bytes;
    ctx.addIssue({ code: 'custom', message: 'memory must be at least 32m' });
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: (error as Error).message });
  }
  return z.NEVER;
});

const LimitsObject = z.strictObject(
  {
    /** Processes and threads of the task at once (default 1024). */
    pids: z.number().int().min(MIN_PIDS, `at least ${MIN_PIDS}`).optional(),
    /** Memory of the task, swap included: bytes, or 512m, 4g (default: half of what the worker may use). */
    memory: memory.optional(),
    /** CPUs' worth of time (1.5); default: every CPU, the tasks weighted below the worker. */
    cpus: z.number().positive().optional(),
  },
  { error: (iss) => (iss.code === 'invalid_type' ? 'off, or a mapping with pids, memory and cpus' : undefined) },
);

/** `limits: off` (or false) enforces nothing and says nothing at start. */
export const LimitsSchema = z
  .unknown()
  .optional()
  .transform((v, ctx): 'off' | z.output<typeof LimitsObject> => {
    if (v === 'off' || v === false) return 'off';
    const parsed = LimitsObject.safeParse(v ?? {});
    if (parsed.success) return parsed.data;
    // Each problem keeps its own key, so the message names it (terminal.local.sandbox.limits.pids: at least 32).
    for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
    return z.NEVER;
  });

export type LimitsSetting = z.infer<typeof LimitsSchema>;

/** The memory this worker may use: the machine's, or its own cgroup's limit when that is lower. */
function workerMemory(support?: CgroupSupport): number {
  let limit = totalmem();
  const base = support ? basesOf(support).get('memory') : undefined;
  if (base) {
    try {
      const text = readFileSync(join(base, support!.version === 1 ? 'memory.limit_in_bytes' : 'memory.max'), 'utf8');
      const n = Number(text.trim());
      if (Number.isFinite(n) && n > 0) limit = Math.min(limit, n);
    } catch {
      // unreadable: the machine's
    }
  }
  return limit;
}

/** The limits each task gets, and the cap all of a worker's tasks share. */
export function resolveLimits(
  setting: Exclude<LimitsSetting, 'off'>,
  available: number,
): { task: TaskLimits; shared: SharedLimits } {
  const mb = (n: number): number => Math.floor(n / 1024 ** 2) * 1024 ** 2;
  return {
    task: {
      pids: setting.pids ?? DEFAULT_PIDS,
      memory: setting.memory ?? mb(available * TASK_SHARE),
      ...(setting.cpus !== undefined ? { cpus: setting.cpus } : {}),
    },
    shared: { memory: Math.max(mb(available * SHARED_SHARE), setting.memory ?? 0) },
  };
}

interface Configured {
  /** The setting and where cgroups are looked for (TETHER_CGROUP_ROOT): what this was made for. */
  key: string;
  groups?: WorkerCgroups;
  task?: TaskLimits;
  /** Why there are no limits (said once at start). */
  warnings: string[];
}

let configured: Configured | undefined;
let exitHook = false;

const FIX =
  'run the worker as root, or in a cgroup v2 subtree delegated to its user (systemd-run --user --scope -p Delegate=yes tether worker), or set terminal.local.sandbox.limits: off';

const keyOf = (setting: LimitsSetting): string => JSON.stringify([setting, process.env.TETHER_CGROUP_ROOT ?? '']);

/**
 * Detects the cgroup mechanism, removes what killed workers left, and makes this worker's group. Returns the
 * warnings to print once at start: where no cgroup can be made the worker runs, and says so.
 */
export async function configureLimits(setting: LimitsSetting): Promise<string[]> {
  if (configured?.key === keyOf(setting)) return configured.warnings;
  // A new configuration (tests; a worker configures once): the old groups go, with what is left in them.
  await configured?.groups?.close();
  configured = { key: keyOf(setting), warnings: [] };
  if (setting === 'off') return [];
  const detected = detectCgroups();
  if ('none' in detected) {
    configured.warnings.push(
      `terminal.local.sandbox.limits: no cgroup can be made here (${detected.none}), so a task's commands are held to no memory, process or CPU limit: ${FIX}`,
    );
    return configured.warnings;
  }
  const { task, shared } = resolveLimits(setting, workerMemory(detected.support));
  try {
    await removeDeadWorkersGroups(detected.support);
    configured.groups = WorkerCgroups.create(detected.support, shared);
    configured.task = task;
  } catch (err) {
    configured.warnings.push(
      `terminal.local.sandbox.limits: cgroup v${detected.support.version} could not be set up (${(err as Error).message}), so a task's commands are held to no memory, process or CPU limit: ${FIX}`,
    );
    return configured.warnings;
  }
  if (task.cpus !== undefined && !configured.groups.controllers.has('cpu'))
    configured.warnings.push(
      `terminal.local.sandbox.limits.cpus: this machine gives tether no cpu controller (cgroup v${detected.support.version}), so commands' CPU time is not limited; memory and processes are`,
    );
  if (!exitHook) {
    exitHook = true;
    process.once('exit', () => configured?.groups?.removeIfEmpty());
  }
  return configured.warnings;
}

/**
 * A new group for one task's processes, or undefined where limits are off or no cgroup could be made (said at
 * start). A worker that never ran the start-up check (a backend chosen per run) makes its cgroups now.
 */
export async function taskCgroup(setting: LimitsSetting, label: string): Promise<TaskCgroup | undefined> {
  if (configured?.key !== keyOf(setting)) {
    for (const w of await configureLimits(setting)) process.stderr.write(`tether: warning: ${w}\n`);
  }
  const c = configured!;
  return c.groups && c.task ? c.groups.task(label, c.task) : undefined;
}
