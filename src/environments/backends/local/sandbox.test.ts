// Unit tests for terminal.local (the sandbox settings) and the bwrap command line built from them. Worker-only.
import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bwrapArgs } from './sandbox.js';
import { LocalSettingsSchema, locateBwrap } from './settings.js';

const layout = { workdir: '/home/me/proj', tmpDir: '/tmp/tether-sandbox-x' };
const spec = { bwrap: '/usr/bin/bwrap', network: true, writable: ['/srv/data'] };

/** The value that follows `flag` (its first argument), for each occurrence. */
const after = (args: string[], flag: string): string[] => args.flatMap((a, i) => (a === flag ? [args[i + 1]!] : []));

describe('terminal.local settings', () => {
  it.each([
    [undefined, { enabled: true, network: true, writable: [] }],
    ['off', { enabled: false, network: true, writable: [] }],
    [false, { enabled: false, network: true, writable: [] }],
    ['on', { enabled: true, network: true, writable: [] }],
    [
      { network: false, writable: ['~/cache', '/x'] },
      { enabled: true, network: false, writable: [join(homedir(), 'cache'), '/x'] },
    ],
  ])('sandbox: %j', (sandbox, expected) => {
    expect(LocalSettingsSchema.parse(sandbox === undefined ? {} : { sandbox }).sandbox).toEqual(expected);
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
    expect(args).not.toContain('--unshare-net');
    expect(args).not.toContain('/dev/pts');
    expect(args.slice(-3)).toEqual(['--chdir', layout.workdir, '--']);
  });

  it('network off unshares it; a PTY keeps the host /dev/pts; a kill script joins a PID namespace instead of making one', () => {
    expect(bwrapArgs({ ...spec, network: false }, layout, { pty: false })).toContain('--unshare-net');
    expect(after(bwrapArgs(spec, layout, { pty: true }), '--dev-bind')).toEqual(['/dev/pts']);
    const joined = bwrapArgs(spec, layout, { pty: false, joinFd: 3 });
    expect(after(joined, '--pidns')).toEqual(['3']);
    expect(joined).not.toContain('--unshare-pid');
  });
});
