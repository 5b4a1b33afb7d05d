// The Daytona transport through the real @daytonaio/sdk against a fake Daytona API on loopback (the cloud cannot be reached here).
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { daytonaBackend, daytonaCleanup, DaytonaTransport } from '../../src/environments/backends/daytona/transport.js';
import { daytonaSettings, daytonaUnavailable } from '../../src/environments/backends/daytona/settings.js';
import type { TransportProcess } from '../../src/environments/types.js';
import { describeTransportCases } from './transport-cases.js';
import { startFakeDaytona, type FakeDaytona } from '../support/fake-daytona-server.js';

const ctx = { taskId: 'task-1', workerId: 'worker-test' };

async function collect(proc: TransportProcess): Promise<{ code: number | null; output: string }> {
  const chunks: Buffer[] = [];
  proc.onData((c) => chunks.push(c));
  const code = await proc.exited;
  return { code, output: Buffer.concat(chunks).toString('utf8') };
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function deadPid(): Promise<number> {
  const child = spawn('true');
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid!;
}

describe('Daytona transport (double: fake Daytona API on loopback)', () => {
  let fake: FakeDaytona;
  let transport: DaytonaTransport;

  const open = async (extra: Record<string, unknown> = {}): Promise<DaytonaTransport> => {
    const t = new DaytonaTransport(daytonaSettings.parse({ api_url: fake.apiUrl, ...extra }), ctx, fake.apiKey);
    await t.start();
    return t;
  };

  beforeAll(async () => {
    fake = await startFakeDaytona();
    transport = await open({ env: { GREETING: 'hello from env' } });
  });

  afterAll(async () => {
    await transport?.close();
    await fake?.close();
  });

  it('creates a labelled sandbox and starts in the sandbox user home', () => {
    const sandbox = fake.sandboxes.get(transport.sandboxId!);
    expect(sandbox?.labels).toMatchObject({
      'tether.task': 'task-1',
      'tether.worker': 'worker-test',
      'tether.host': hostname(),
    });
    expect(sandbox?.request.autoStopInterval).toBe(15);
    expect(transport.workdir).toBe(sandbox?.dir);
  });

  it('returns stdout and stderr interleaved and the exit code', async () => {
    const { code, output } = await collect(transport.spawn('echo out; echo err >&2; echo "$GREETING"; exit 3'));
    expect(code).toBe(3);
    // Two pipes: the order between stdout and stderr is the sandbox's, not ours.
    expect(output.split('\n').sort()).toEqual(['', 'err', 'hello from env', 'out']);
  });

  it('runs in the workdir', async () => {
    expect((await collect(transport.spawn('pwd'))).output.trim()).toBe(transport.workdir);
  });

  describeTransportCases('Daytona (double: fake Daytona API on loopback)', {
    fresh: () => open(),
    killFromOutside: (t) => fake.stopSandbox((t as DaytonaTransport).sandboxId!),
  });

  it('streams output while the command runs', async () => {
    const dir = transport.workdir;
    const proc = transport.spawn('echo first; while [ ! -f go ]; do sleep 0.05; done; echo second');
    const seen: string[] = [];
    proc.onData((c) => {
      seen.push(c.toString());
      // The command only goes on once its first line reached us.
      if (c.toString().includes('first')) writeFileSync(join(dir, 'go'), '');
    });
    expect(await proc.exited).toBe(0);
    expect(seen.join('')).toBe('first\nsecond\n');
  });

  it('creates a configured workdir', async () => {
    const t = await open({ workdir: '/tmp/tether-daytona-test-workdir' });
    try {
      expect(t.workdir).toBe('/tmp/tether-daytona-test-workdir');
      expect((await collect(t.spawn('pwd'))).output.trim()).toBe('/tmp/tether-daytona-test-workdir');
    } finally {
      await t.close();
    }
  });

  it('is not alive once the sandbox was deleted; close() then still succeeds, twice', async () => {
    const t = await open();
    fake.removeSandbox(t.sandboxId!);
    expect(await t.alive()).toBe(false);
    await expect(t.spawn('echo hi').exited).rejects.toMatchObject({ code: 'Environment.Gone' });
    await t.close();
    await t.close();
  });

  it('names the URL when the API cannot be reached', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/api`;
    const t = new DaytonaTransport(daytonaSettings.parse({ api_url: url }), ctx, 'some-key');
    const err = await t.start().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code: 'Environment.Unreachable' });
    expect((err as Error).message).toContain(`cannot reach the Daytona API at ${url}`);
    await t.close();
  });

  it('reports a refused key as Environment.Config', async () => {
    const t = new DaytonaTransport(daytonaSettings.parse({ api_url: fake.apiUrl }), ctx, 'wrong-key');
    await expect(t.start()).rejects.toMatchObject({
      code: 'Environment.Config',
      message: expect.stringContaining('DAYTONA_API_KEY was refused'),
    });
  });

  it('removes sandboxes of dead workers on this host, and only those', async () => {
    const mine = await open();
    const dead = String(await deadPid());
    const leftover = await open();
    fake.sandboxes.get(leftover.sandboxId!)!.labels = {
      'tether.host': hostname(),
      'tether.worker': 'gone-worker',
      'tether.pid': dead,
    };
    const elsewhere = await open();
    fake.sandboxes.get(elsewhere.sandboxId!)!.labels = {
      'tether.host': 'another-host',
      'tether.worker': 'gone-worker',
      'tether.pid': dead,
    };
    const removed = await daytonaCleanup(
      daytonaSettings.parse({ api_url: fake.apiUrl }),
      { workerId: 'other-live-worker' },
      fake.apiKey,
    );
    expect(removed).toBe(1);
    expect(fake.sandboxes.has(leftover.sandboxId!)).toBe(false);
    expect(fake.sandboxes.has(elsewhere.sandboxId!)).toBe(true);
    // Labelled with this very (live) process: kept.
    expect(fake.sandboxes.has(mine.sandboxId!)).toBe(true);
    await Promise.all([mine.close(), leftover.close(), elsewhere.close()]);
  });
});

describe('Daytona settings', () => {
  it('fill defaults and refuse misspelt keys', () => {
    const s = daytonaSettings.parse({});
    expect(s.auto_stop_minutes).toBe(15);
    expect(s.env).toEqual({});
    expect(s.api_url).toBe(process.env.DAYTONA_API_URL || 'https://app.daytona.io/api');
    expect(daytonaSettings.safeParse({ auto_stop_minute: 5 }).success).toBe(false);
    expect(daytonaSettings.safeParse({ image: 'debian', snapshot: 'x' }).success).toBe(false);
    expect(daytonaSettings.safeParse({ snapshot: 'x', cpu: 2 }).success).toBe(false);
    expect(daytonaSettings.safeParse({ workdir: 'relative' }).success).toBe(false);
  });

  it('say which variable is missing', () => {
    const s = daytonaSettings.parse({});
    expect(daytonaUnavailable(s, {})).toBe('DAYTONA_API_KEY is not set');
    expect(daytonaUnavailable(s, { DAYTONA_API_KEY: 'k' })).toBeUndefined();
    expect(daytonaBackend.name).toBe('daytona');
  });
});
