// Modal transport: the real `modal` SDK against test/support/fake-modal-server.ts, a double of Modal's gRPC API on loopback.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ModalClient } from 'modal';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { modalBackend, ModalTransport } from '../../src/environments/backends/modal/transport.js';
import { modalCredentialsMissing } from '../../src/environments/backends/modal/settings.js';
import type { ModalSettings } from '../../src/environments/backends/modal/settings.js';
import { EnvironmentError } from '../../src/environments/types.js';
import type { TransportProcess } from '../../src/environments/types.js';
import type { Logger } from '../../src/logging/logger.js';
import { startFakeModal, type FakeModal } from '../support/fake-modal-server.js';
import { describeConformance } from './conformance.js';
import { describeTransportCases } from './transport-cases.js';

const quiet: Logger = { warn: () => undefined, info: () => undefined, error: () => undefined, debug: () => undefined };
const ENV_KEYS = ['MODAL_SERVER_URL', 'MODAL_TOKEN_ID', 'MODAL_TOKEN_SECRET', 'MODAL_CONFIG_PATH'] as const;

async function collect(proc: TransportProcess): Promise<{ output: string; code: number | null }> {
  let output = '';
  proc.onData((c) => (output += c.toString('utf8')));
  const code = await proc.exited;
  return { output, code };
}

async function rejection(p: Promise<unknown>): Promise<EnvironmentError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(EnvironmentError);
  return err as EnvironmentError;
}

describe('modal transport (double: fake Modal API on loopback)', () => {
  let fake: FakeModal;
  let dir: string;
  const saved: Partial<Record<(typeof ENV_KEYS)[number], string>> = {};
  const open: ModalTransport[] = [];

  beforeAll(async () => {
    for (const k of ENV_KEYS) saved[k] = process.env[k];
    fake = await startFakeModal();
    dir = mkdtempSync(join(tmpdir(), 'tether-modal-'));
    process.env['MODAL_SERVER_URL'] = fake.url;
    process.env['MODAL_TOKEN_ID'] = fake.tokenId;
    process.env['MODAL_TOKEN_SECRET'] = fake.tokenSecret;
    process.env['MODAL_CONFIG_PATH'] = join(dir, 'no-modal.toml');
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((t) => t.close()));
  });
  afterAll(async () => {
    for (const k of ENV_KEYS) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
    await fake.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  function settings(extra: Record<string, unknown> = {}): ModalSettings {
    // The fake runs commands on this host, so the workdir is a directory that exists here.
    return modalBackend.settings.parse({ workdir: dir, ...extra });
  }
  async function started(extra: Record<string, unknown> = {}): Promise<ModalTransport> {
    const t = new ModalTransport(settings(extra), { taskId: 'task-1', workerId: 'w-1', log: quiet });
    open.push(t);
    await t.start();
    return t;
  }

  it('creates the app, the image and a sandbox with the settings', async () => {
    const t = await started({
      app: 'tether-test',
      image: 'alpine:3.20',
      cpu: 0.5,
      memory_mib: 1024,
      timeout_seconds: 120,
      env: { FOO: 'bar' },
    });
    expect(fake.apps.has('tether-test')).toBe(true);
    expect(fake.images.at(-1)).toEqual(['FROM alpine:3.20']);
    const sb = fake.sandboxes.get(t.sandboxId ?? '');
    expect(sb?.definition).toMatchObject({
      timeoutSecs: 120,
      workdir: dir,
      resources: { milliCpu: 500, memoryMb: 1024 },
    });
    expect(await t.alive()).toBe(true);
    expect((await collect(t.spawn('echo "$FOO"'))).output).toBe('bar\n');
  });

  /** Terminates the sandbox through another client, as a user or Modal itself would. */
  async function terminateElsewhere(t: ModalTransport): Promise<void> {
    const other = new ModalClient();
    await (await other.sandboxes.fromId(t.sandboxId ?? '')).terminate();
    other.close();
  }

  describeTransportCases('modal (double: fake Modal API on loopback)', {
    fresh: () => started(),
    killFromOutside: (t) => terminateElsewhere(t as ModalTransport),
  });

  it('runs sh -c in the workdir', async () => {
    const t = await started();
    expect(await collect(t.spawn('pwd'))).toEqual({ output: `${dir}\n`, code: 0 });
  });

  it('names the sandbox when it was terminated elsewhere', async () => {
    const t = await started();
    await terminateElsewhere(t);
    expect((await rejection(t.spawn('echo hi').exited)).message).toContain(t.sandboxId);
  });

  it('close() terminates the sandbox and is idempotent', async () => {
    const t = await started();
    const id = t.sandboxId ?? '';
    await t.close();
    expect(fake.sandboxes.get(id)?.terminated).toBe(true);
    await t.close();
    expect(await t.alive()).toBe(false);
    expect((await rejection(t.spawn('true').exited)).code).toBe('Environment.Gone');
  });

  it('wrong credentials fail start() with Environment.Config', async () => {
    const t = new ModalTransport(
      settings(),
      { taskId: 't', workerId: 'w', log: quiet },
      () => new ModalClient({ tokenId: 'ak-wrong', tokenSecret: 'as-wrong' }),
    );
    const err = await rejection(t.start());
    expect(err.code).toBe('Environment.Config');
    expect(err.message).toMatch(/incorrect/);
    await t.close();
  });

  it('an API that is not listening fails start() with Environment.Unreachable naming it', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const url = `http://127.0.0.1:${port}`;
    // The SDK takes its API address only from MODAL_SERVER_URL or ~/.modal.toml (its `endpoint` option is unused).
    const client = (): ModalClient => {
      process.env['MODAL_SERVER_URL'] = url;
      try {
        return new ModalClient();
      } finally {
        process.env['MODAL_SERVER_URL'] = fake.url;
      }
    };
    const t = new ModalTransport(settings(), { taskId: 't', workerId: 'w', log: quiet }, client);
    const err = await rejection(t.start());
    expect(err.code).toBe('Environment.Unreachable');
    expect(err.message).toContain(url);
    await t.close();
  });
});

describe('modal settings and availability', () => {
  it('says which credentials are missing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tether-modal-cfg-'));
    try {
      const none = { MODAL_CONFIG_PATH: join(dir, 'absent.toml') };
      expect(modalCredentialsMissing(none)).toBe(
        'MODAL_TOKEN_ID and MODAL_TOKEN_SECRET are not set (or ~/.modal.toml)',
      );
      expect(modalCredentialsMissing({ ...none, MODAL_TOKEN_ID: 'ak-x' })).toMatch(/MODAL_TOKEN_SECRET/);
      expect(modalCredentialsMissing({ ...none, MODAL_TOKEN_ID: 'ak-x', MODAL_TOKEN_SECRET: 'as-y' })).toBeUndefined();
      const toml = join(dir, 'modal.toml');
      writeFileSync(toml, '[default]\ntoken_id = "ak-x"\ntoken_secret = "as-y"\n');
      expect(modalCredentialsMissing({ MODAL_CONFIG_PATH: toml })).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('has defaults and rejects misspelt keys', () => {
    expect(modalBackend.settings.parse({})).toEqual({
      app: 'tether',
      image: 'python:3.12-slim',
      timeout_seconds: 3600,
      workdir: '/root',
      env: {},
    });
    expect(() => modalBackend.settings.parse({ timeout: 5 })).toThrow();
  });
});

describeConformance('modal (double: fake Modal API on loopback)', async () => {
  const fake = await startFakeModal();
  const workdir = mkdtempSync(join(tmpdir(), 'tether-modal-conf-'));
  process.env['MODAL_SERVER_URL'] = fake.url;
  process.env['MODAL_TOKEN_ID'] = fake.tokenId;
  process.env['MODAL_TOKEN_SECRET'] = fake.tokenSecret;
  return {
    terminal: { backend: 'modal', modal: { workdir } },
    hostCwd: workdir,
    recreatedAfterBreak: true,
    breakEnvironment: async (taskId) => {
      const found = [...fake.sandboxes.values()].filter((sb) => sb.tags['tether_task'] === taskId && !sb.terminated);
      if (found.length !== 1) throw new Error(`expected one sandbox for ${taskId}, found ${found.length}`);
      const other = new ModalClient();
      await (await other.sandboxes.fromId(found[0]!.id)).terminate();
      other.close();
    },
    stop: async () => {
      await fake.stop();
      rmSync(workdir, { recursive: true, force: true });
    },
  };
});
