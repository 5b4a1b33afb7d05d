// The local sandbox's network, for real (bubblewrap, nsenter, slirp4netns): each task has a network namespace of
// its own. The default (proxy) has no route out at all: only tether's egress proxy, on a port of the task's
// loopback (test/environments/egress-proxy.test.ts). Direct reaches out but never this machine's loopback, where the
// Temporal dev server listens (a command could otherwise send its own run's approval); a task's commands, background
// processes and PTYs share a loopback no other task sees; network off has only that loopback; `host` is the
// machine's network, with a warning. Traffic stays on this machine: the "outside" is a server on this machine's own
// non-loopback address.
import { symlinkSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { environmentManager } from '../../src/environments/current.js';
import { until } from '../support/cli.js';
import { call, configure, dir, ownChildren, type Result } from '../support/local-sandbox.js';

const cwd = dir('tether-net-');
let n = 0;
const task = (): string => `net-${process.pid}-${++n}`;
const sh = (taskId: string, args: object): Promise<Result> => call('terminal', taskId, cwd, args);

afterAll(async () => {
  await environmentManager().closeAll();
});

/** A shell command that connects to host:port (retrying for `seconds` while refused) and prints what happened. */
const probe = (host: string, port: number, seconds = 0): string =>
  `python3 -c "
import socket, time
end = time.time() + ${seconds}
while True:
  try:
    s = socket.create_connection(('${host}', ${port}), 3)
    print('connected', s.recv(16).decode()); break
  except OSError as e:
    if time.time() >= end: print('failed:', e.strerror or e); break
    time.sleep(0.1)
"`;

/** A server inside a task, on the task's loopback, answering every connection with `hello`. */
const loopbackServer = (port: number): string =>
  `python3 -c "
import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(('127.0.0.1', ${port})); s.listen()
while True:
  c, _ = s.accept(); c.sendall(b'hello'); c.close()
"`;

/** A server on this machine (outside every sandbox) at `host`, counting the connections it takes. */
async function hostServer(host: string): Promise<{ port: number; connections: () => number; close: () => void }> {
  let connections = 0;
  const server: Server = createServer((s) => {
    connections += 1;
    s.end('hello');
  });
  await new Promise<void>((r) => server.listen(0, host, r));
  return {
    port: (server.address() as { port: number }).port,
    connections: () => connections,
    close: () => server.close(),
  };
}

/** This machine's first non-loopback IPv4 address: a stand-in for "the outside" that keeps traffic here. */
const outsideAddress = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;

describe("the local sandbox's task network", () => {
  it.skipIf(!outsideAddress)(
    'network proxy (the default): a raw socket to an outside address fails at once, no route, no packet out of the namespace',
    async () => {
      await configure({});
      const outside = await hostServer(outsideAddress!);
      try {
        const t = task();
        const tcp = await sh(t, { command: probe(outsideAddress!, outside.port) });
        expect(tcp.output).toBe('failed: Network is unreachable\n');
        // The kernel refuses before any packet is made: the namespace has only its loopback, and no route at all.
        const udp = await sh(t, {
          command: `python3 -c "
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
try: s.sendto(b'x', ('${outsideAddress!}', 53)); print('sent')
except OSError as e: print('failed:', e.strerror)
"`,
        });
        expect(udp.output).toBe('failed: Network is unreachable\n');
        const links = await sh(t, {
          command: "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '; grep -vc Iface /proc/net/route",
        });
        expect(links.output).toBe('lo\n0\n');
        // The program's own error, and the result saying why: only the proxy leads out.
        expect(tcp.exit_code).toBe(0);
        const failing = await sh(t, { command: `${probe(outsideAddress!, outside.port)}; exit 7` });
        expect(failing.sandbox).toMatch(
          /no direct network: programs reach the outside only through tether's egress proxy/,
        );
        expect(outside.connections()).toBe(0);
      } finally {
        outside.close();
      }
    },
  );

  it("network direct reaches out, but nothing on this machine's loopback: the Temporal dev server's place", async () => {
    await configure({ sandbox: { network: 'direct' } });
    const local = await hostServer('127.0.0.1');
    try {
      const t = task();
      const direct = await sh(t, { command: probe('127.0.0.1', local.port) });
      expect(direct.output).toMatch(/^failed: Connection refused/);
      // slirp4netns's gateway is this machine's loopback unless disabled: it is.
      const gateway = await sh(t, { command: probe('10.0.2.2', local.port) });
      expect(gateway.output).toMatch(/^failed: /);
      expect(local.connections()).toBe(0);
    } finally {
      local.close();
    }
  });

  it('a command cannot reach the Temporal dev server its run talks to (it asks no credentials: it would take an approval)', async () => {
    await configure({});
    const [host, port] = inject('temporalAddress').split(':') as [string, string];
    // The server is there: this process reaches it.
    await new Promise<void>((resolve, reject) => {
      const socket = createConnection({ host, port: Number(port) }, () => {
        socket.end();
        resolve();
      }).on('error', reject);
    });
    const reached = await sh(task(), { command: probe(host, Number(port)) });
    expect(reached.output).toMatch(/^failed: Connection refused/);
  });

  it.skipIf(process.getuid?.() !== 0)(
    'as root, a command cannot write a sysctl (core_pattern would run its program as root in the host namespaces, loopback included)',
    async () => {
      await configure({});
      // Writes the value back unchanged: harmless even where the sandbox fails to stop it.
      const r = await sh(task(), {
        command:
          'v=$(cat /proc/sys/kernel/core_pattern); printf %s "$v" > /proc/sys/kernel/core_pattern && echo written',
      });
      expect(r.output).toMatch(/Read-only file system/);
      expect(r.output).not.toMatch(/written/);
      // sysrq-trigger (reboot, crash) is only asked, never written: test -w sees a read-only mount even as root.
      const sysrq = await sh(task(), { command: 'test -w /proc/sysrq-trigger && echo writable || echo read-only' });
      expect(sysrq.output).toBe('read-only\n');
    },
  );

  it.skipIf(!outsideAddress)(
    'network direct reaches a server on another address (this machine’s own, here), with a warning at start',
    async () => {
      const log = await configure({ sandbox: { network: 'direct' } });
      expect(log.lines.map((l) => l.msg).join('\n')).toMatch(/network is direct: commands reach every host/);
      const outside = await hostServer(outsideAddress!);
      try {
        expect((await sh(task(), { command: probe(outsideAddress!, outside.port) })).output).toBe('connected hello\n');
        expect(outside.connections()).toBe(1);
      } finally {
        outside.close();
      }
    },
  );

  it.each(['proxy', 'direct', false])(
    "network %s: a task's commands, background processes and PTYs share a loopback no other task sees",
    async (network) => {
      await configure({ sandbox: { network } });
      const [a, b] = [task(), task()];
      const server = await sh(a, { command: loopbackServer(38123), background: true });
      expect(server.process_id).toMatch(/^proc_/);
      expect((await sh(a, { command: probe('127.0.0.1', 38123, 10) })).output).toBe('connected hello\n');
      const pty = await sh(a, { command: probe('127.0.0.1', 38123), pty: true });
      expect(pty.output).toMatch(/connected hello/);
      expect((await sh(b, { command: probe('127.0.0.1', 38123) })).output).toMatch(/^failed: Connection refused/);
      await environmentManager().release(a);
      await environmentManager().release(b);
    },
  );

  it.skipIf(!outsideAddress)('network off: no way out at all, only the task’s loopback', async () => {
    await configure({ sandbox: { network: false } });
    const outside = await hostServer(outsideAddress!);
    const local = await hostServer('127.0.0.1');
    try {
      const t = task();
      expect((await sh(t, { command: probe(outsideAddress!, outside.port) })).output).toMatch(
        /^failed: Network is unreachable/,
      );
      expect((await sh(t, { command: probe('127.0.0.1', local.port) })).output).toMatch(/^failed: Connection refused/);
      expect(outside.connections() + local.connections()).toBe(0);
    } finally {
      outside.close();
      local.close();
    }
  });

  it("network: host is this machine's network as it is, loopback included, and the worker says so at start", async () => {
    const log = await configure({ sandbox: { network: 'host' } });
    expect(log.lines.map((l) => l.msg).join('\n')).toMatch(/network is host: .*the Temporal server included/);
    const local = await hostServer('127.0.0.1');
    try {
      expect((await sh(task(), { command: probe('127.0.0.1', local.port) })).output).toBe('connected hello\n');
    } finally {
      local.close();
    }
  });

  it("a task's namespace and its slirp4netns end with its environment", async () => {
    await configure({ sandbox: { network: 'direct' } });
    await environmentManager().closeAll();
    // The start-up check's own network, made and closed once.
    await until('no task network is left', async () => ownChildren('slirp4netns').length === 0, 10_000);
    const t = task();
    expect((await sh(t, { command: 'echo up' })).output).toBe('up\n');
    expect(ownChildren('slirp4netns')).toHaveLength(1);
    expect(ownChildren('bwrap').length).toBeGreaterThanOrEqual(2); // the namespace's holder and the task's shell
    await environmentManager().release(t);
    await until('slirp4netns and the holder are gone', async () => ownChildren('slirp4netns').length === 0, 10_000);
    expect(ownChildren('bwrap')).toEqual([]);
  });

  it('a machine without slirp4netns stops start-up with one line naming the package and the ways out', async () => {
    // A PATH with bwrap and nsenter (and what the sandbox's checks run) but no slirp4netns.
    const bin = dir('tether-net-bin-');
    for (const name of ['bwrap', 'nsenter', 'true', 'sleep', 'sh']) symlinkSync(`/usr/bin/${name}`, join(bin, name));
    const saved = process.env.PATH;
    process.env.PATH = bin;
    try {
      await expect(configure({ sandbox: { network: 'direct' } })).rejects.toThrow(
        /^terminal\.local\.sandbox\.network: slirp4netns not found \(not on PATH\); install the package 'slirp4netns' \(Debian\/Ubuntu: apt-get install slirp4netns\), or set terminal\.local\.sandbox\.network: proxy \(the egress proxy, host by host\), false \(no network\) or host/,
      );
      // Without the direct outside network, slirp4netns is not needed.
      await configure({ sandbox: { network: false } });
      await configure({});
      // One that cannot bring up a network here (as for a worker not running as root without /dev/net/tun) says
      // why, in its own words.
      const failing = join(bin, 'slirp4netns');
      writeFileSync(failing, '#!/bin/sh\necho \'open("/dev/net/tun"): Permission denied\' >&2\nexit 1\n', {
        mode: 0o755,
      });
      await expect(configure({ sandbox: { network: 'direct' } })).rejects.toThrow(
        /^terminal\.local\.sandbox\.network: the sandbox's network namespace: \S+slirp4netns could not bring up its network \(open\("\/dev\/net\/tun"\): Permission denied\); or set terminal\.local\.sandbox\.network: proxy/,
      );
    } finally {
      process.env.PATH = saved;
    }
  });
});
