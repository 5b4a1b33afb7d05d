// The cgroup mount and membership parsers, on files recorded from real machines: this hybrid one (v1 controllers and
// an empty v2), a systemd machine with only v2, and a container that sees only its own part of each hierarchy.
import { describe, expect, it } from 'vitest';
import { dirThrough, parseMountinfo, parseProcCgroup } from './mounts.js';

const HYBRID_MOUNTS = `22 27 0:21 / /proc rw,relatime - proc proc rw
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw`;
const HYBRID_CGROUP = `9:name=systemd:/
8:pids:/
4:memory:/process_api/5107c556
2:cpuacct:/
1:cpu:/
0::/`;

describe('cgroup mounts', () => {
  it('reads a hybrid machine: v1 hierarchies by controller, the v2 one beside them, named hierarchies without controllers', () => {
    const mounts = parseMountinfo(HYBRID_MOUNTS);
    expect(mounts.map((m) => [m.mountPoint, m.version, m.controllers.join(',')])).toEqual([
      ['/sys/fs/cgroup/cpu', 1, 'cpu'],
      ['/sys/fs/cgroup/cpuacct', 1, 'cpuacct'],
      ['/sys/fs/cgroup/memory', 1, 'memory'],
      ['/sys/fs/cgroup/pids', 1, 'pids'],
      ['/sys/fs/cgroup/systemd', 1, ''],
      ['/sys/fs/cgroup/unified', 2, ''],
    ]);
    const own = parseProcCgroup(HYBRID_CGROUP);
    expect(own.v2).toBe('/');
    expect(own.v1.get('memory')).toBe('/process_api/5107c556');
    expect(own.v1.get('pids')).toBe('/');
    expect(dirThrough(mounts[2]!, own.v1.get('memory')!)).toBe('/sys/fs/cgroup/memory/process_api/5107c556');
    expect(dirThrough(mounts[3]!, '/')).toBe('/sys/fs/cgroup/pids');
  });

  it('reads a v2-only systemd machine, controllers mounted together, and a mount point with a space', () => {
    const mounts = parseMountinfo(
      [
        '30 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot',
        '50 23 0:40 / /mnt/my\\040cg rw,relatime - cgroup cgroup rw,cpu,cpuacct',
      ].join('\n'),
    );
    expect(mounts[0]).toMatchObject({ mountPoint: '/sys/fs/cgroup', version: 2, root: '/' });
    expect(mounts[1]).toMatchObject({ mountPoint: '/mnt/my cg', controllers: ['cpu', 'cpuacct'] });
    const own = parseProcCgroup('0::/user.slice/user-1000.slice/user@1000.service/app.slice/tether.scope\n');
    expect(own.v1.size).toBe(0);
    expect(dirThrough(mounts[0]!, own.v2!)).toBe(
      '/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service/app.slice/tether.scope',
    );
  });

  it('in a container that mounts only its own part of a hierarchy, maps its cgroup through the mount root', () => {
    const [memory] = parseMountinfo('60 50 0:32 /docker/abc /sys/fs/cgroup/memory ro,nosuid - cgroup cgroup rw,memory');
    expect(memory!.root).toBe('/docker/abc');
    expect(dirThrough(memory!, '/docker/abc')).toBe('/sys/fs/cgroup/memory');
    expect(dirThrough(memory!, '/docker/abc/task')).toBe('/sys/fs/cgroup/memory/task');
    // A cgroup the mount does not show cannot be reached through it.
    expect(dirThrough(memory!, '/docker/other')).toBeUndefined();
    expect(dirThrough(memory!, '/docker/abcdef')).toBeUndefined();
  });

  it('ignores lines that are not cgroup mounts or not mountinfo at all', () => {
    expect(parseMountinfo('garbage\n\n1 2 3 - \n')).toEqual([]);
    expect(parseProcCgroup('nonsense\n').v2).toBeUndefined();
  });
});
