// Which cgroup mechanism this worker can hold its tasks' processes with, decided once at start: cgroup v2 in a
// subtree it may write (its own cgroup, delegated by systemd or given to a root worker), else cgroup v1 as root
// (memory, pids and cpu hierarchies), else none, with the reason. Worker-only (reads /proc and the cgroup files).
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { dirThrough, readCgroupMounts } from './mounts.js';
import type { Controller } from './files.js';

/** Where tasks' groups can be made: the worker's own cgroup in each hierarchy that holds a controller. */
export type CgroupSupport =
  | {
      version: 1;
      /** The worker's own cgroup directory for each controller's hierarchy. */
      bases: Map<Controller, string>;
    }
  | {
      version: 2;
      /** The worker's own cgroup directory: one hierarchy for every controller. */
      base: string;
      /** The controllers it offers that tether uses. */
      controllers: Controller[];
      /** The mount's top (processes there need not move: the root cgroup may hold processes and children). */
      mountPoint: string;
    };

/** The worker's own cgroup directory for each controller. */
export function basesOf(s: CgroupSupport): Map<Controller, string> {
  return s.version === 1 ? s.bases : new Map(s.controllers.map((c) => [c, s.base]));
}

export type Detected = { support: CgroupSupport } | { none: string };

const NEEDED: readonly Controller[] = ['memory', 'pids'];
const WANTED: readonly Controller[] = ['memory', 'pids', 'cpu'];

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** v2: the own cgroup, when it offers memory and pids and this process may make groups in it. */
function detectV2(root: string): Detected | undefined {
  const { mounts, own } = readCgroupMounts(root);
  const mount = mounts.find((m) => m.version === 2);
  if (!mount || own.v2 === undefined) return undefined;
  const base = dirThrough(mount, own.v2);
  if (!base || !existsSync(base)) return undefined;
  let offered: string[];
  try {
    offered = readFileSync(join(base, 'cgroup.controllers'), 'utf8').trim().split(/\s+/);
  } catch {
    return undefined;
  }
  const missing = NEEDED.filter((c) => !offered.includes(c));
  if (missing.length > 0)
    return {
      none: `cgroup v2 at ${mount.mountPoint}: the worker's cgroup ${own.v2} offers no ${missing.join(' or ')} controller`,
    };
  if (!writable(base) || !writable(join(base, 'cgroup.subtree_control')))
    return { none: `cgroup v2 at ${mount.mountPoint}: the worker's cgroup ${own.v2} is not delegated to its user` };
  const controllers = WANTED.filter((c) => offered.includes(c));
  return { support: { version: 2, base, controllers, mountPoint: mount.mountPoint } };
}

/** v1: a hierarchy for memory and for pids (and cpu, when there is one), each with the own cgroup writable. */
function detectV1(root: string): Detected | undefined {
  const { mounts, own } = readCgroupMounts(root);
  const v1 = mounts.filter((m) => m.version === 1);
  if (v1.length === 0) return undefined;
  const bases = new Map<Controller, string>();
  const problems: string[] = [];
  for (const c of WANTED) {
    const mount = v1.find((m) => m.controllers.includes(c));
    const path = own.v1.get(c);
    const base = mount && path !== undefined ? dirThrough(mount, path) : undefined;
    if (!base || !existsSync(base)) {
      if (NEEDED.includes(c)) problems.push(`no ${c} hierarchy`);
      continue;
    }
    if (!writable(base)) {
      if (NEEDED.includes(c)) problems.push(`${base} is not writable (cgroup v1 needs the worker to run as root)`);
      continue;
    }
    bases.set(c, base);
  }
  if (problems.length > 0) return { none: `cgroup v1 under ${root}: ${problems.join('; ')}` };
  return { support: { version: 1, bases } };
}

/**
 * The mechanism to use, from the cgroup file systems mounted below `root` (TETHER_CGROUP_ROOT, else /sys/fs/cgroup):
 * v2 first (a hybrid machine's v2 hierarchy usually has no controllers, and v1 is used), then v1.
 */
export function detectCgroups(root = process.env.TETHER_CGROUP_ROOT || '/sys/fs/cgroup'): Detected {
  if (process.platform !== 'linux') return { none: `cgroups are Linux's; this is ${process.platform}` };
  const v2 = detectV2(root);
  if (v2 && 'support' in v2) return v2;
  const v1 = detectV1(root);
  if (v1 && 'support' in v1) return v1;
  const reasons = [v2, v1].filter((d): d is { none: string } => d !== undefined).map((d) => d.none);
  return { none: reasons.length > 0 ? reasons.join('; ') : `no cgroup file system is mounted under ${root}` };
}
