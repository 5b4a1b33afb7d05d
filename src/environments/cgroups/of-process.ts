// The limit counters of the cgroup another program's process is in, read from this machine (a Docker container's
// init, whose limits the daemon set): which limit acted during a command, for backends that did not make the
// group themselves. Worker-only (reads /proc and the cgroup files).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { COUNTER_FILES, counterOf, type LimitCounters } from './files.js';
import { dirThrough, parseProcCgroup, readCgroupMounts } from './mounts.js';

/**
 * A reader of the counters of `pid`'s cgroup, or undefined where they cannot be read from here (another machine's
 * daemon, a process not visible, no cgroup file system).
 */
export function countersOfProcess(pid: number, root = '/sys/fs/cgroup'): (() => LimitCounters) | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/cgroup`, 'utf8');
  } catch {
    return undefined;
  }
  const own = parseProcCgroup(text);
  const { mounts } = readCgroupMounts(root);
  const v2 = mounts.find((m) => m.version === 2);
  const dirOf = (c: 'memory' | 'pids'): string | undefined => {
    const v1 = mounts.find((m) => m.version === 1 && m.controllers.includes(c));
    const path = own.v1.get(c);
    if (v1 && path !== undefined) return dirThrough(v1, path);
    return v2 && own.v2 !== undefined ? dirThrough(v2, own.v2) : undefined;
  };
  const version = own.v1.has('memory') ? 1 : 2;
  const memory = dirOf('memory');
  const pids = dirOf('pids');
  if (!memory && !pids) return undefined;
  const read = (dir: string | undefined, file: string): string => {
    try {
      return dir ? readFileSync(join(dir, file), 'utf8') : '';
    } catch {
      return '';
    }
  };
  return () => ({
    oomKills: counterOf(read(memory, COUNTER_FILES[version].oom), 'oom_kill'),
    pidsRefused: counterOf(read(pids, COUNTER_FILES[version].pids), 'max'),
  });
}
