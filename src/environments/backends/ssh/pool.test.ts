// Unit tests for the SSH connection retry policy (the connect function is a stub; real connections are tested against sshd in test/). Worker-only.
import type { Client } from 'ssh2';
import { describe, expect, it } from 'vitest';
import type { SshLink } from './connect.js';
import { connectWithRetry } from './pool.js';
import { EnvironmentError } from '../../types.js';

const link: SshLink = { client: {} as Client, lost: undefined, channels: 0, full: false };

function failing(errors: Error[]): { connect: () => Promise<SshLink>; calls: () => number } {
  let calls = 0;
  return {
    connect: async () => {
      const err = errors[calls++];
      if (err) throw err;
      return link;
    },
    calls: () => calls,
  };
}

const unreachable = () => new EnvironmentError('Environment.Unreachable', 'ssh', 'cannot connect: ECONNREFUSED');

describe('connectWithRetry (stubbed connect)', () => {
  it('retries unreachable hosts and returns the first success', async () => {
    const c = failing([unreachable(), unreachable()]);
    await expect(connectWithRetry(c.connect, [0, 0, 0])).resolves.toBe(link);
    expect(c.calls()).toBe(3);
  });

  it('gives up after the last delay with the last error', async () => {
    const c = failing([unreachable(), unreachable(), unreachable(), unreachable(), unreachable()]);
    await expect(connectWithRetry(c.connect, [0, 0])).rejects.toMatchObject({ code: 'Environment.Unreachable' });
    expect(c.calls()).toBe(3);
  });

  it('never retries a configuration error', async () => {
    const c = failing([new EnvironmentError('Environment.Config', 'ssh', 'authentication failed'), unreachable()]);
    await expect(connectWithRetry(c.connect, [0, 0])).rejects.toMatchObject({ code: 'Environment.Config' });
    expect(c.calls()).toBe(1);
  });
});
