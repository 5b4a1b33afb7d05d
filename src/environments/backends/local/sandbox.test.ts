// Unit tests for terminal.local (the sandbox settings) and the bwrap command line built from them. Worker-only.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bwrapArgs, ptyArgv } from './sandbox.js';
import { LocalSettingsSchema, locateBwrap, sandboxSpec } from './settings.js';

const layout = { workdir: '/home/me/proj', tmpDir: '/tmp/tether-sandbox-x' };
const spec = {
  bwrap: '/usr/bin/bwrap',
  network: 'proxy' as const,
  nsenter: '/usr/bin/nsenter',
  slirp4netns: '/usr/bin/slirp4netns',
  writable: ['/srv/data'],
  hidden: [],
  exposed: [],
};

/** The value that follows `flag` (its first argument), for each occurrence. */
const after = (args: string[], flag: string): string[] => args.flatMap((a, i) => (a === flag ? [args[i + 1]!] : []));

describe('terminal.local settings', () => {
  it.each([
    [undefined, { enabled: true, network: 'proxy', writable: [], hidden: [], expose: [] }],
    ['off', { enabled: false, network: 'proxy', writable: [], hidden: [], expose: [] }],
    [false, { enabled: false, network: 'proxy', writable: [], hidden: [], expose: [] }],
    ['on', { enabled: true, network: 'proxy', writable: [], hidden: [], expose: [] }],
    // true was the outside network before the egress proxy: it means the default way out now.
    [{ network: true }, { enabled: true, network: 'proxy', writable: [], hidden: [], expose: [] }],
    [{ network: 'direct' }, { enabled: true, network: 'direct', writable: [], hidden: [], expose: [] }],
    [{ network: 'host' }, { enabled: true, network: 'host', writable: [], hidden: [], expose: [] }],
    [
      { network: false, writable: ['~/cache', '/x'], hidden: ['~/.ssh'] },
      {
        enabled: true,
        network: false,
        writable: [join(homedir(), 'cache'), '/x'],
        hidden: [join(homedir(), '.ssh')],
        expose: [],
      },
    ],
  ])('sandbox: %j', (sandbox, expected) => {
    expect(LocalSettingsSchema.parse(sandbox === undefined ? {} : { sandbox }).sandbox).toMatchObject(expected);
  });

  it('finds bwrap by setting, TETHER_BWRAP or PATH', () => {
    expect(locateBwrap('/nonexistent/bwrap', {})).toEqual({ path: '/nonexistent/bwrap', found: false });
    expect(locateBwrap(undefined, { TETHER_BWRAP: '/nope', PATH: '/usr/bin' })).toEqual({
      path: '/nope',
      found: false,
    });
    expect(locateBwrap(undefined, { PATH: '/nonexistent-dir' })).toEqual({ path: 'bwrap', found: false });
  });
});

describe('bwrapArgs', () => {
  it('read-only root first, writable binds after it, own PID namespace, no capabilities, dies with the worker', () => {
    const args = bwrapArgs(spec, layout, { pty: false });
    expect(args.slice(0, 3)).toEqual(['--ro-bind', '/', '/']);
    expect(after(args, '--bind')).toEqual(['/tmp/tether-sandbox-x', layout.workdir, '/srv/data']);
    expect(args.indexOf('--bind')).toBeGreaterThan(args.indexOf('--tmpfs'));
    expect(args).toEqual(expect.arrayContaining(['--unshare-pid', '--die-with-parent', '--proc', '--dev']));
    expect(after(args, '--cap-drop')).toEqual(['ALL']);
    expect(after(args, '--tmpfs')).toEqual(expect.arrayContaining(['/run', '/dev/shm']));
    expect(args).not.toContain('/dev/pts');
    expect(args.slice(-3)).toEqual(['--chdir', layout.workdir, '--']);
  });

  it("mounts the fresh /proc's sys read-only: as root (no capabilities) a command could otherwise write kernel.core_pattern and run a program as root outside every namespace", () => {
    // bwrap skips /proc/sys when covering /proc's dangerous entries (access(W_OK) on that directory always fails),
    // but each sysctl file in it is writable by uid 0 whatever its capabilities.
    const args = bwrapArgs(spec, layout, { pty: false });
    const proc = args.findIndex((a, i) => a === '--proc' && args[i + 1] === '/proc');
    const sys = args.findIndex(
      (a, i) => a === '--ro-bind' && args[i + 1] === '/proc/sys' && args[i + 2] === '/proc/sys',
    );
    expect(proc).toBeGreaterThanOrEqual(0);
    expect(sys).toBeGreaterThan(proc);
  });

  it('leaves the network to the task network (never unshares it per command); mounts its resolv.conf when it has one', () => {
    for (const network of ['proxy', 'direct', false, 'host'] as const)
      expect(bwrapArgs({ ...spec, network }, layout, { pty: false })).not.toContain('--unshare-net');
    const resolvConf = { file: '/tmp/tether-net-x/resolv.conf', target: '/run/systemd/resolve/stub-resolv.conf' };
    const args = bwrapArgs(spec, { ...layout, resolvConf }, { pty: false });
    const bound = args.findIndex((a, i) => a === '--ro-bind' && args[i + 1] === resolvConf.file);
    expect(args[bound + 2]).toBe(resolvConf.target);
    expect(bound).toBeGreaterThan(args.indexOf('/run'));
  });

  it("a PTY never gets the host's /dev/pts (every terminal of the machine); a kill script joins a PID namespace instead of making one", () => {
    expect(bwrapArgs(spec, layout, { pty: true })).not.toContain('/dev/pts');
    expect(ptyArgv('echo "hi"')).toEqual(['script', '-qfec', `exec /bin/sh -c 'echo "hi"'`, '/dev/null']);
    const joined = bwrapArgs(spec, layout, { pty: false, joinFd: 3 });
    expect(after(joined, '--pidns')).toEqual(['3']);
    // The kill script is started from the worker's side: it must not carry the worker's network into the sandbox.
    expect(joined).toContain('--unshare-net');
    expect(bwrapArgs(spec, layout, { pty: false })).not.toContain('--unshare-net');
    expect(joined).not.toContain('--unshare-pid');
  });

  it('hides directories under an empty read-only file system and files behind /dev/null, on top of the binds; a bind inside a hidden directory is bound again', () => {
    const home = mkdtempSync(join(tmpdir(), 'tether-hide-'));
    const secrets = join(home, 'secrets');
    mkdirSync(secrets);
    const key = join(home, 'key.pem');
    writeFileSync(key, 'k');
    const task = join(secrets, 'task');
    mkdirSync(task);
    const args = bwrapArgs(
      { ...spec, hidden: [secrets, key, join(home, 'missing')] },
      { ...layout, workdir: task },
      {
        pty: false,
      },
    );
    const at = (flag: string, value: string): number => args.findIndex((a, i) => a === flag && args[i + 1] === value);
    expect(at('--tmpfs', secrets)).toBeGreaterThan(at('--bind', layout.tmpDir));
    expect(args.slice(at('--tmpfs', secrets) - 4, at('--tmpfs', secrets))).toEqual([
      '--perms',
      '0555',
      '--size',
      '4096',
    ]);
    expect(args[at('--ro-bind', '/dev/null') + 2]).toBe(key);
    expect(args.join(' ')).not.toContain('missing');
    expect(args.join(' ')).not.toContain('inner.txt');
    // The task's directory, inside the hidden one, is bound once before and once again after it.
    expect(after(args, '--bind').filter((p) => p === task)).toHaveLength(2);
    expect(args.lastIndexOf(task)).toBeGreaterThan(at('--tmpfs', secrets));
  });
});

describe('sandboxSpec: what is hidden by default', () => {
  it("hides the credential locations of the worker's home, except what expose names; and other tasks' /tmp when TMPDIR is not /tmp", () => {
    const home = mkdtempSync(join(tmpdir(), 'tether-spec-home-'));
    mkdirSync(join(home, '.ssh'));
    mkdirSync(join(home, '.aws'));
    const saved = { HOME: process.env.HOME, TMPDIR: process.env.TMPDIR };
    const elsewhere = mkdtempSync(join(tmpdir(), 'tether-spec-tmp-'));
    try {
      process.env.HOME = home;
      process.env.TMPDIR = elsewhere;
      const s = sandboxSpec(
        LocalSettingsSchema.parse({ sandbox: { expose: ['~/.ssh/known_hosts', join(home, '.aws')] } }),
      )!;
      expect(s.hidden).toEqual(expect.arrayContaining([join(home, '.ssh'), join(home, '.claude'), elsewhere]));
      expect(s.hidden).not.toContain(join(home, '.aws'));
      expect(s.exposed).toEqual([join(home, '.ssh/known_hosts'), join(home, '.aws')]);
      // An exposed path inside a hidden directory is bound back on top, read-only.
      writeFileSync(join(home, '.ssh/known_hosts'), 'h');
      const args = bwrapArgs(s, layout, { pty: false });
      const i = args.lastIndexOf(join(home, '.ssh/known_hosts'));
      expect(args.slice(i - 2, i + 1)).toEqual([
        '--ro-bind',
        join(home, '.ssh/known_hosts'),
        join(home, '.ssh/known_hosts'),
      ]);
      expect(args.indexOf(join(home, '.ssh'))).toBeLessThan(i);
    } finally {
      process.env.HOME = saved.HOME;
      if (saved.TMPDIR === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved.TMPDIR;
    }
  });
});
