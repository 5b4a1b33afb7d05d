// The Vercel Sandbox transport through the real @vercel/sandbox SDK against a fake Vercel Sandbox API on loopback
// (the cloud cannot be reached here).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TransportProcess } from '../../src/environments/types.js';
import { vercelBackend, vercelCleanup, VercelTransport } from '../../src/environments/backends/vercel/transport.js';
import { vercelSettings, vercelUnavailable } from '../../src/environments/backends/vercel/settings.js';
import { describeTransportCases } from './transport-cases.js';
import { startFakeVercel, type FakeVercel } from '../support/fake-vercel-server.js';

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

describe('Vercel Sandbox transport (double: fake Vercel Sandbox API on loopback)', () => {
  let fake: FakeVercel;
  let transport: VercelTransport;
  let root: string;
  let env: NodeJS.ProcessEnv;

  const open = async (extra: Record<string, unknown> = {}, e: NodeJS.ProcessEnv = env): Promise<VercelTransport> => {
    // Commands run on this machine, so the workdir is a local temp dir rather than /vercel/sandbox.
    const t = new VercelTransport(
      vercelSettings.parse({ workdir: join(root, `w${Math.random().toString(36).slice(2)}`), ...extra }),
      ctx,
      { apiUrl: fake.apiUrl, env: e },
    );
    await t.start();
    return t;
  };

  beforeAll(async () => {
    fake = await startFakeVercel();
    root = mkdtempSync(join(tmpdir(), 'vercel-test-'));
    env = { VERCEL_TOKEN: fake.token, VERCEL_TEAM_ID: fake.teamId, VERCEL_PROJECT_ID: fake.projectId };
    transport = await open({ env: { GREETING: 'hello from env' }, vcpus: 2 });
  });

  afterAll(async () => {
    await transport?.close();
    await fake?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('creates a tagged sandbox with the configured runtime, timeout and resources', () => {
    const sandbox = fake.sandboxes.get(transport.sandboxName!);
    expect(sandbox?.tags).toMatchObject({
      'tether.task': 'task-1',
      'tether.worker': 'worker-test',
      'tether.host': hostname(),
    });
    expect(sandbox?.request).toMatchObject({
      runtime: 'node22',
      timeout: 2_700_000,
      resources: { vcpus: 2 },
      projectId: fake.projectId,
    });
  });

  it('returns stdout and stderr and the exit code, in the workdir', async () => {
    const { code, output } = await collect(transport.spawn('echo out; echo err >&2; echo "$GREETING"; pwd; exit 3'));
    expect(code).toBe(3);
    // Two pipes: the order between stdout and stderr is the sandbox's, not ours.
    expect(output.split('\n').sort()).toEqual(['', 'err', 'hello from env', 'out', transport.workdir].sort());
  });

  it('streams output while the command runs', async () => {
    const proc = transport.spawn('echo first; while [ ! -f go ]; do sleep 0.05; done; echo second');
    const seen: string[] = [];
    proc.onData((c) => {
      seen.push(c.toString());
      // The command only goes on once its first line reached us.
      if (c.toString().includes('first')) writeFileSync(join(transport.workdir, 'go'), '');
    });
    expect(await proc.exited).toBe(0);
    expect(seen.join('')).toBe('first\nsecond\n');
  });

  describeTransportCases('Vercel Sandbox (double: fake Vercel Sandbox API on loopback)', {
    fresh: () => open(),
    killFromOutside: (t) => fake.stopSandbox((t as VercelTransport).sandboxName!),
  });

  it('is not alive once the sandbox was deleted; close() then still succeeds, twice', async () => {
    const t = await open();
    fake.removeSandbox(t.sandboxName!);
    expect(await t.alive()).toBe(false);
    await expect(t.spawn('echo hi').exited).rejects.toMatchObject({ code: 'Environment.Gone' });
    await t.close();
    await t.close();
  });

  it('names the URL when the API cannot be reached', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const t = new VercelTransport(vercelSettings.parse({}), ctx, { apiUrl: url, env });
    const err = await t.start().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code: 'Environment.Unreachable' });
    expect((err as Error).message).toContain(`cannot reach the Vercel Sandbox API at ${url}`);
    await t.close();
  });

  it('reports a refused token as Environment.Config', async () => {
    const t = new VercelTransport(vercelSettings.parse({}), ctx, {
      apiUrl: fake.apiUrl,
      env: { ...env, VERCEL_TOKEN: 'wrong' },
    });
    await expect(t.start()).rejects.toMatchObject({
      code: 'Environment.Config',
      message: expect.stringContaining('was refused'),
    });
  });

  it('fails start with Environment.Config when no credentials are set', async () => {
    const t = new VercelTransport(vercelSettings.parse({}), ctx, { apiUrl: fake.apiUrl, env: {} });
    await expect(t.start()).rejects.toMatchObject({
      code: 'Environment.Config',
      message: expect.stringContaining('VERCEL_TOKEN'),
    });
  });

  it('removes sandboxes of dead workers on this host, and only those', async () => {
    const mine = await open();
    const dead = String(await deadPid());
    const leftover = await open();
    fake.sandboxes.get(leftover.sandboxName!)!.tags = {
      'tether.host': hostname(),
      'tether.worker': 'gone-worker',
      'tether.pid': dead,
    };
    const elsewhere = await open();
    fake.sandboxes.get(elsewhere.sandboxName!)!.tags = {
      'tether.host': 'another-host',
      'tether.worker': 'gone-worker',
      'tether.pid': dead,
    };
    const removed = await vercelCleanup(
      vercelSettings.parse({}),
      { workerId: 'other-live-worker' },
      { apiUrl: fake.apiUrl, env },
    );
    expect(removed).toBe(1);
    expect(fake.sandboxes.has(leftover.sandboxName!)).toBe(false);
    expect(fake.sandboxes.has(elsewhere.sandboxName!)).toBe(true);
    expect(fake.sandboxes.has(mine.sandboxName!)).toBe(true);
    await Promise.all([mine.close(), leftover.close(), elsewhere.close()]);
  });
});

describe('Vercel Sandbox settings', () => {
  it('fill defaults and refuse misspelt keys', () => {
    const s = vercelSettings.parse({});
    expect(s).toEqual({ runtime: 'node22', timeout_seconds: 2700, workdir: '/vercel/sandbox', env: {} });
    expect(vercelSettings.safeParse({ timeout_second: 5 }).success).toBe(false);
    expect(vercelSettings.safeParse({ runtime: 'node8' }).success).toBe(false);
  });

  it('say which variables are missing', () => {
    const s = vercelSettings.parse({});
    expect(vercelUnavailable(s, {})).toBe(
      'VERCEL_TOKEN, VERCEL_TEAM_ID and VERCEL_PROJECT_ID (or VERCEL_OIDC_TOKEN) are not set',
    );
    expect(vercelUnavailable(s, { VERCEL_TOKEN: 't', VERCEL_TEAM_ID: 'x' })).toBeDefined();
    expect(vercelUnavailable(s, { VERCEL_TOKEN: 't', VERCEL_TEAM_ID: 'x', VERCEL_PROJECT_ID: 'p' })).toBeUndefined();
    expect(vercelUnavailable(s, { VERCEL_OIDC_TOKEN: 'o' })).toBeUndefined();
    expect(vercelBackend.name).toBe('vercel_sandbox');
  });
});
