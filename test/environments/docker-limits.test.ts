// Docker maps the local sandbox's limit keys (terminal.docker.limits: pids, memory, cpus) onto the container's own
// limits, and a command that reaches one gets a result naming it, as on the local backend (a real dockerd, the
// locally built test image).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/config.js';
import { configureEnvironments, environmentManager } from '../../src/environments/current.js';
import { dockerSettings } from '../../src/environments/backends/docker/settings.js';
import { dockerAvailable, ensureTestImage } from '../support/docker-fixture.js';
import { call, dir } from '../support/local-sandbox.js';
import { recordingLogger } from '../support/recording-logger.js';

describe('terminal.docker.limits', () => {
  it('takes the same keys as terminal.local.sandbox.limits, over the older memory, cpus and pids_limit', () => {
    expect(dockerSettings.parse({ memory: '2g', limits: { pids: 64, memory: '256m', cpus: 0.5 } })).toMatchObject({
      memory: 256 * 1024 ** 2,
      cpus: 0.5,
      pids_limit: 64,
    });
    expect(dockerSettings.parse({ limits: { pids: 100 } })).toMatchObject({
      memory: 1024 ** 3,
      cpus: 1,
      pids_limit: 100,
    });
    expect(dockerSettings.safeParse({ limits: { pid: 1 } }).error?.issues[0]).toMatchObject({
      path: ['limits'],
      message: 'Unrecognized key: "pid"',
    });
  });
});

let skip: string | undefined;
const cwd = dir('tether-docker-limits-');
beforeAll(async () => {
  skip = await dockerAvailable();
  if (skip) return;
  const image = await ensureTestImage();
  await configureEnvironments(
    parseConfig({ terminal: { backend: 'docker', docker: { image, limits: { pids: 64, memory: '64m' } } } }).terminal,
    recordingLogger(),
  );
}, 120_000);
afterAll(async () => {
  await environmentManager().closeAll();
});

describe('a container at its limits (real dockerd)', () => {
  it('names the process and memory limits a command reached', async (ctx) => {
    if (skip) ctx.skip(skip);
    const t = `docker-limits-${process.pid}`;
    const forks = await call('terminal', t, cwd, {
      command: 'for i in $(seq 200); do sleep 5 & done; echo all started',
      timeout: 90,
    });
    expect(forks.output).not.toMatch(/all started/);
    expect(forks.sandbox).toMatch(
      /the task reached its process limit \(64 processes and threads, terminal\.docker\.limits\.pids\)/,
    );
    const big = await call('terminal', t, cwd, {
      command: 'dd if=/dev/zero of=/dev/null bs=256M count=1',
      timeout: 60,
    });
    expect(big.exit_code).toBe(137);
    expect(big.sandbox).toMatch(
      /the task reached its memory limit \(64 MiB, terminal\.docker\.limits\.memory\): the kernel killed one/,
    );
    expect((await call('terminal', t, cwd, { command: 'echo after' })).output).toBe('after\n');
  }, 150_000);
});
