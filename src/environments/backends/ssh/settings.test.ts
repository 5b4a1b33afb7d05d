// Unit tests for the terminal.ssh settings: defaults, misspelt keys, the availability check and connection sharing. Worker-only.
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { poolKey, sshSettingsSchema, sshTarget, sshUnavailable } from './settings.js';

describe('terminal.ssh settings', () => {
  it('fills in defaults', () => {
    const s = sshSettingsSchema.parse({ host: 'example.org' });
    expect(s).toMatchObject({
      port: 22,
      user: userInfo().username,
      known_hosts: '~/.ssh/known_hosts',
      host_key_check: 'strict',
      keepalive_seconds: 15,
      keepalive_count_max: 3,
      connect_timeout_seconds: 20,
      env: {},
    });
    const t = sshTarget({ ...s, agent: '' });
    expect(t.knownHosts.endsWith(join('.ssh', 'known_hosts'))).toBe(true);
    expect(t.knownHosts.startsWith('~')).toBe(false);
    expect(t.agent).toBeUndefined();
    expect(t.keepaliveMs).toBe(15_000);
  });

  it('rejects misspelt keys, bad ports, bad modes and bad variable names', () => {
    expect(sshSettingsSchema.safeParse({ host: 'h', prot: 22 }).success).toBe(false);
    expect(sshSettingsSchema.safeParse({ host: 'h', port: 70_000 }).success).toBe(false);
    expect(sshSettingsSchema.safeParse({ host: 'h', host_key_check: 'yes' }).success).toBe(false);
    expect(sshSettingsSchema.safeParse({ host: 'h', env: { 'A-B': 'x' } }).success).toBe(false);
  });

  it('says which setting is missing', () => {
    expect(sshUnavailable(sshSettingsSchema.parse({}))).toBe('terminal.ssh.host is not set');
    const noPass = sshSettingsSchema.parse({ host: 'h', passphrase_env: 'TETHER_TEST_UNSET_PASSPHRASE' });
    expect(sshUnavailable(noPass)).toMatch(/TETHER_TEST_UNSET_PASSPHRASE \(terminal\.ssh\.passphrase_env\) is not set/);
    const badKey = sshSettingsSchema.parse({ host: 'h', key_path: '/nonexistent/key' });
    expect(sshUnavailable(badKey)).toMatch(/cannot read terminal\.ssh\.key_path \/nonexistent\/key/);
    expect(sshUnavailable(sshSettingsSchema.parse({ host: 'h', key_path: '/dev/null' }))).toBeUndefined();
  });

  it('shares a connection only between identical logins with identical host key checking', () => {
    const base = sshSettingsSchema.parse({ host: 'h', key_path: '/k', agent: '' });
    const key = poolKey(sshTarget(base));
    expect(poolKey(sshTarget({ ...base, cwd: '/elsewhere' }))).toBe(key);
    expect(poolKey(sshTarget({ ...base, user: 'other' }))).not.toBe(key);
    expect(poolKey(sshTarget({ ...base, port: 2222 }))).not.toBe(key);
    expect(poolKey(sshTarget({ ...base, key_path: '/k2' }))).not.toBe(key);
    expect(poolKey(sshTarget({ ...base, host_key_check: 'off' }))).not.toBe(key);
  });
});
