// A task network made and closed at once (as the worker's start-up check does) leaves nothing behind: its namespace's
// owner, its bwrap and its slirp4netns all end. Real bwrap and slirp4netns (Linux).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { until } from '../../../../test/support/cli.js';
import { ownChildren } from '../../../../test/support/local-sandbox.js';
import { TaskNetwork } from './task-network.js';

const tools = { bwrap: '/usr/bin/bwrap', nsenter: '/usr/bin/nsenter', slirp4netns: '/usr/bin/slirp4netns' };

/** Whether a process is still there and not a zombie waiting to be reaped. */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

describe.skipIf(!existsSync(tools.bwrap) || !existsSync(tools.slirp4netns))('TaskNetwork', () => {
  it('ends its namespace owner even when closed the moment it was made, with or without the outside network', async () => {
    const owners: number[] = [];
    for (let i = 0; i < 10; i += 1) {
      const net = await TaskNetwork.open(i % 2 ? tools : { ...tools, slirp4netns: undefined });
      owners.push(net.owner);
      expect(net.alive()).toBe(true);
      net.close();
    }
    await until('every owner has ended', async () => !owners.some(running), 5_000);
    expect(owners.filter(running)).toEqual([]);
  });

  it('runs a command line inside the namespace, whose outside is up before open returns', async () => {
    const net = await TaskNetwork.open(tools);
    try {
      const argv = net.wrap(['cat', '/proc/net/dev']);
      expect(argv.slice(-3)).toEqual(['--', 'cat', '/proc/net/dev']);
      const devices = execFileSync(argv[0]!, argv.slice(1), { encoding: 'utf8' });
      expect(devices).toMatch(/tap0:/);
      expect(devices).not.toMatch(/eth0:/);
    } finally {
      net.close();
    }
    expect(net.alive()).toBe(false);
    // Nothing joins a namespace that has ended: no command falls back to another's (or the machine's) network.
    expect(() => net.wrap(['true'])).toThrow(/the task's network namespace has ended/);
  });

  it.skipIf(process.getuid?.() !== 0)(
    'as root, slirp4netns (which parses every packet a command sends) keeps no capability but binding low ports, under seccomp',
    async () => {
      const net = await TaskNetwork.open(tools);
      try {
        const [slirp] = ownChildren('slirp4netns');
        const status = readFileSync(`/proc/${slirp}/status`, 'utf8');
        expect(/^CapEff:\s*(\S+)/m.exec(status)?.[1]).toBe('0000000000000400'); // CAP_NET_BIND_SERVICE
        expect(/^Seccomp:\s*(\S+)/m.exec(status)?.[1]).toBe('2');
      } finally {
        net.close();
      }
    },
  );
});
