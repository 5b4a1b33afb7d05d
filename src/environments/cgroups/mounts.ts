// Where this machine's cgroup file systems are mounted (/proc/self/mountinfo) and where the worker's own cgroup is in
// each (/proc/self/cgroup): the parsers are pure string work, tested on recorded files; the readers are worker-only.
import { readFileSync } from 'node:fs';
import { posix } from 'node:path';

export interface CgroupMount {
  /** Where it is mounted (escapes such as \040 decoded). */
  mountPoint: string;
  /** Which part of the hierarchy the mount shows (`/` unless a container mounted only its own part). */
  root: string;
  version: 1 | 2;
  /** v1: the controllers of this hierarchy (`memory`; `cpu`, `cpuacct` when mounted together). v2: none here. */
  controllers: string[];
}

/** mountinfo's octal escapes (\040 for a space, \011, \012, \134). */
const unescape = (s: string): string =>
  s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));

/** The cgroup and cgroup2 mounts of a mountinfo text. */
export function parseMountinfo(text: string): CgroupMount[] {
  const out: CgroupMount[] = [];
  for (const line of text.split('\n')) {
    const dash = line.indexOf(' - ');
    if (dash < 0) continue;
    const left = line.slice(0, dash).split(' ');
    const [fstype, , superOptions = ''] = line.slice(dash + 3).split(' ');
    if ((fstype !== 'cgroup' && fstype !== 'cgroup2') || left.length < 5) continue;
    const controllers =
      fstype === 'cgroup' ? superOptions.split(',').filter((o) => o !== 'rw' && o !== 'ro' && !o.includes('=')) : [];
    out.push({
      mountPoint: unescape(left[4]!),
      root: unescape(left[3]!),
      version: fstype === 'cgroup2' ? 2 : 1,
      controllers,
    });
  }
  return out;
}

/** The worker's cgroup in each hierarchy: `v2` from the `0::` line, `v1` by controller name. */
export interface OwnCgroups {
  v2?: string;
  v1: Map<string, string>;
}

export function parseProcCgroup(text: string): OwnCgroups {
  const v1 = new Map<string, string>();
  let v2: string | undefined;
  for (const line of text.split('\n')) {
    const m = /^(\d+):([^:]*):(.*)$/.exec(line);
    if (!m) continue;
    if (m[1] === '0' && m[2] === '') v2 = m[3];
    else for (const c of m[2]!.split(',')) if (c) v1.set(c, m[3]!);
  }
  return { v2, v1 };
}

/** The directory of `path` (a cgroup's path in its hierarchy) through `mount`, or undefined when the mount does not show it. */
export function dirThrough(mount: CgroupMount, path: string): string | undefined {
  const root = mount.root === '/' ? '' : mount.root.replace(/\/+$/, '');
  if (path !== root && !path.startsWith(`${root}/`) && root !== '') return undefined;
  const dir = posix.join(mount.mountPoint, path.slice(root.length));
  return dir.length > 1 && dir.endsWith('/') ? dir.slice(0, -1) : dir;
}

const within = (path: string, dir: string): boolean =>
  path === dir || path.startsWith(dir.endsWith('/') ? dir : `${dir}/`);

/** This process's cgroup mounts below `root` (TETHER_CGROUP_ROOT, else /sys/fs/cgroup) and its own cgroups. */
export function readCgroupMounts(root: string): { mounts: CgroupMount[]; own: OwnCgroups } {
  let mounts: CgroupMount[] = [];
  let own: OwnCgroups = { v1: new Map() };
  try {
    mounts = parseMountinfo(readFileSync('/proc/self/mountinfo', 'utf8')).filter((m) => within(m.mountPoint, root));
    own = parseProcCgroup(readFileSync('/proc/self/cgroup', 'utf8'));
  } catch {
    // not Linux, or no /proc: no cgroups
  }
  return { mounts, own };
}
