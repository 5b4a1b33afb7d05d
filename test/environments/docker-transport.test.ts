// The Docker transport against the real dockerd on this machine and the locally built test image.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir, hostname } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDemuxer } from '../../src/environments/backends/docker/exec.js';
import { defaultSocketPath, dockerSettings, parseMemory } from '../../src/environments/backends/docker/settings.js';
import { dockerBackend, type DockerTransport } from '../../src/environments/backends/docker/transport.js';
import { EnvironmentError, type SpawnOptions, type Transport } from '../../src/environments/types.js';
import { dockerAvailable, ensureTestImage, makeDockerTransport, TEST_IMAGE } from '../support/docker-fixture.js';
import { recordingLogger } from '../support/recording-logger.js';
import { describeTransportCases } from './transport-cases.js';

const docker = new Docker({ socketPath: defaultSocketPath() });

async function run(t: Transport, script: string, opts: SpawnOptions & { stdin?: string } = {}) {
  const p = t.spawn(script, opts);
  const chunks: Buffer[] = [];
  p.onData((c) => chunks.push(c));
  const code = await p.exited;
  return { code, out: Buffer.concat(chunks).toString() };
}

async function rejection(promise: Promise<unknown>): Promise<EnvironmentError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(EnvironmentError);
  return error as EnvironmentError;
}

describe('docker settings', () => {
  it('has defaults for everything and rejects misspelt keys and bad sizes', () => {
    const s = dockerSettings.parse({});
    expect(s).toMatchObject({
      image: 'debian:bookworm-slim',
      network: 'none',
      memory: 1024 ** 3,
      cpus: 1,
      pids_limit: 256,
    });
    expect(s.cap_drop).toEqual(['ALL']);
    expect(dockerSettings.safeParse({ imgae: 'x' }).success).toBe(false);
    expect(dockerSettings.safeParse({ memory: 'lots' }).success).toBe(false);
    expect(dockerSettings.safeParse({ workdir: 'relative' }).success).toBe(false);
    expect(parseMemory('512m')).toBe(512 * 1024 ** 2);
    expect(parseMemory('1.5g')).toBe(1.5 * 1024 ** 3);
    expect(defaultSocketPath({ DOCKER_HOST: 'unix:///run/other.sock' })).toBe('/run/other.sock');
  });

  it('demultiplexes frames split anywhere', () => {
    const frame = (type: number, text: string) => {
      const head = Buffer.alloc(8);
      head.writeUInt8(type, 0);
      head.writeUInt32BE(Buffer.byteLength(text), 4);
      return Buffer.concat([head, Buffer.from(text)]);
    };
    const all = Buffer.concat([frame(1, 'out\n'), frame(2, 'err\n'), frame(1, 'more')]);
    const seen: string[] = [];
    const feed = createDemuxer((c) => seen.push(c.toString()));
    for (let i = 0; i < all.length; i += 3) feed(all.subarray(i, i + 3));
    expect(seen.join('')).toBe('out\nerr\nmore');
  });

  it('names the missing socket when unavailable', () => {
    const why = dockerBackend.unavailable?.(dockerSettings.parse({ socket_path: '/nonexistent/docker.sock' }));
    expect(why).toContain('/nonexistent/docker.sock');
  });
});

describe('docker transport (real dockerd, local test image)', () => {
  let skip: string | undefined;
  let shared: DockerTransport | undefined;
  const own: DockerTransport[] = [];
  const transport = (taskId: string, settings: Record<string, unknown> = {}, ctx = {}) => {
    const t = makeDockerTransport(taskId, settings, ctx);
    own.push(t);
    return t;
  };

  beforeAll(async () => {
    skip = await dockerAvailable();
    if (skip) return;
    await ensureTestImage();
    shared = transport('docker-test/shared', {
      memory: '512m',
      pids_limit: 64,
      cpus: 0.5,
      env: { GREETING: 'hi there' },
    });
    await shared.start();
  }, 120_000);
  afterAll(async () => {
    for (const t of own) await t.close();
  });
  const test = (title: string, fn: (t: DockerTransport) => Promise<void>) => {
    it(title, async (ctx) => {
      if (skip) ctx.skip(skip);
      await fn(shared!);
    });
  };

  describeTransportCases('docker (real dockerd, local test image)', {
    skip: () => skip,
    fresh: async () => {
      const t = transport(`docker-test/case-${own.length}`);
      await t.start();
      return t;
    },
    killFromOutside: async (t) => {
      await docker.getContainer((t as DockerTransport).containerId!).kill();
    },
  });

  test('starts in /workspace with the configured environment', async (t) => {
    expect(await run(t, 'pwd; echo "$GREETING"')).toEqual({ code: 0, out: '/workspace\nhi there\n' });
  });

  test('has no network but loopback', async (t) => {
    const dev = await run(t, "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '");
    expect(dev).toEqual({ code: 0, out: 'lo\n' });
  });

  test('drops all capabilities and sets no-new-privileges', async (t) => {
    const status = await run(t, 'grep -E "^(CapEff|CapPrm|NoNewPrivs)" /proc/self/status');
    expect(status.out).toMatch(/CapPrm:\s+0{16}\n/);
    expect(status.out).toMatch(/CapEff:\s+0{16}\n/);
    expect(status.out).toMatch(/NoNewPrivs:\s+1\n/);
  });

  test('sets limits, security options and labels on the container', async (t) => {
    const info = await docker.getContainer(t.containerId!).inspect();
    expect(info.Name).toBe(`/${t.name}`);
    expect(t.name).toMatch(/^tether-docker-test-shared-[0-9a-f]{6}$/);
    expect(info.HostConfig).toMatchObject({
      NetworkMode: 'none',
      Memory: 512 * 1024 ** 2,
      PidsLimit: 64,
      NanoCpus: 500_000_000,
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges'],
    });
    expect(info.Config.Labels).toMatchObject({
      'tether.managed': '1',
      'tether.task': 'docker-test/shared',
      'tether.worker': `test-worker-${process.pid}`,
      'tether.host': hostname(),
      'tether.pid': String(process.pid),
    });
  });

  test('destroy() drops the channel and exited resolves with null', async (t) => {
    const p = t.spawn('sleep 5');
    setTimeout(() => p.destroy(), 100);
    expect(await p.exited).toBeNull();
  });

  test('mounts the host cwd at workdir when mount_cwd is set; read_only keeps the root file system read-only', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'tether-docker-mount-')));
    writeFileSync(join(dir, 'from-host.txt'), 'host says hi\n');
    const t = transport(
      'docker-test/mount',
      { mount_cwd: true, workdir: '/project', read_only: true },
      { hostCwd: dir },
    );
    await t.start();
    expect(
      await run(t, 'pwd; cat from-host.txt; echo back > from-container.txt; touch /tmp/ok && echo tmp-ok'),
    ).toEqual({
      code: 0,
      out: '/project\nhost says hi\ntmp-ok\n',
    });
    expect(readFileSync(join(dir, 'from-container.txt'), 'utf8')).toBe('back\n');
    expect((await run(t, 'touch /etc/nope')).code).not.toBe(0);
    await t.close();
  });

  test('a container killed or removed from outside is named in the Environment.Gone message', async () => {
    const t = transport('docker-test/killed');
    await t.start();
    await docker.getContainer(t.containerId!).kill();
    expect((await rejection(t.spawn('echo hi').exited)).message).toContain(`container ${t.name} is gone (exited)`);
    await docker.getContainer(t.containerId!).remove({ force: true });
    const removed = await rejection(t.spawn('echo hi').exited);
    expect(removed.message).toContain(`container ${t.name} is gone (removed)`);
    await t.close();
  });

  // Needs no daemon: nothing listens at this path anywhere.
  it('an unreachable daemon is Environment.Unreachable naming the socket', async () => {
    const t = makeDockerTransport('docker-test/unreachable', { socket_path: '/tmp/tether-no-such-docker.sock' });
    const error = await rejection(t.start());
    expect(error.code).toBe('Environment.Unreachable');
    expect(error.message).toContain('cannot reach the Docker daemon at /tmp/tether-no-such-docker.sock');
    expect(error.message).toContain('ENOENT');
    await t.close();
  });

  test('a missing image is Environment.Config naming the image, and nothing is pulled', async () => {
    const t = transport('docker-test/no-image', { image: 'tether-no-such-image:never' });
    const error = await rejection(t.start());
    expect(error.code).toBe('Environment.Config');
    expect(error.message).toContain('image tether-no-such-image:never is not in the Docker daemon');
    expect(error.retryable).toBe(false);
    expect(t.containerId).toBeUndefined();
  });

  test('cleanup removes containers of dead workers on this host and leaves live ones', async () => {
    const dead = spawnSync('true').pid!;
    const make = (pid: number, tag: string) =>
      docker.createContainer({
        name: `tether-cleanup-${tag}-${process.pid}`,
        Image: TEST_IMAGE,
        Cmd: ['sleep', '600'],
        Labels: {
          'tether.managed': '1',
          'tether.host': hostname(),
          'tether.pid': String(pid),
          'tether.task': 'x',
          'tether.worker': 'w',
        },
        HostConfig: { NetworkMode: 'none' },
      });
    const deadOne = await make(dead, 'dead');
    const liveOne = await make(process.pid, 'live');
    try {
      const log = recordingLogger();
      const removed = await dockerBackend.cleanup!(dockerSettings.parse({}), { workerId: 'cleaner', log });
      expect(removed).toBeGreaterThanOrEqual(1);
      await expect(deadOne.inspect()).rejects.toMatchObject({ statusCode: 404 });
      expect((await liveOne.inspect()).Id).toBe(liveOne.id);
      expect(await shared!.alive()).toBe(true);
      expect(log.lines.some((l) => l.msg.includes('dead worker'))).toBe(true);
    } finally {
      await liveOne.remove({ force: true });
      await deadOne.remove({ force: true }).catch(() => undefined);
    }
  });

  test('close() removes the container', async () => {
    const t = transport('docker-test/close');
    await t.start();
    const id = t.containerId!;
    await t.close();
    await expect(docker.getContainer(id).inspect()).rejects.toMatchObject({ statusCode: 404 });
  });
});
