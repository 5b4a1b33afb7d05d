// Singularity/Apptainer transport against test/fixtures/fake-apptainer, a double of the CLI (Apptainer is not packaged here).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  singularityBackend,
  SingularityTransport,
  instanceName,
} from '../../src/environments/backends/singularity/transport.js';
import type { SingularitySettings } from '../../src/environments/backends/singularity/settings.js';
import { EnvironmentError } from '../../src/environments/types.js';
import type { TransportProcess } from '../../src/environments/types.js';
import { describeConformance } from './conformance.js';
import { describeTransportCases } from './transport-cases.js';

const FAKE = resolve(import.meta.dirname, '../fixtures/fake-apptainer');

async function collect(proc: TransportProcess): Promise<{ output: string; code: number | null }> {
  let output = '';
  proc.onData((c) => (output += c.toString('utf8')));
  const code = await proc.exited;
  return { output, code };
}

describe('singularity transport (double: fake apptainer CLI)', () => {
  let root: string;
  let image: string;
  const open: SingularityTransport[] = [];
  const savedState = process.env['APPTAINER_FAKE_STATE'];

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'tether-sing-'));
    image = join(root, 'image.sif');
    writeFileSync(image, 'not really a SIF');
    process.env['APPTAINER_FAKE_STATE'] = join(root, 'state');
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((t) => t.close()));
  });
  afterAll(() => {
    if (savedState === undefined) delete process.env['APPTAINER_FAKE_STATE'];
    else process.env['APPTAINER_FAKE_STATE'] = savedState;
    rmSync(root, { recursive: true, force: true });
  });

  function settings(extra: Partial<Record<keyof SingularitySettings, unknown>> = {}): SingularitySettings {
    return singularityBackend.settings.parse({ binary: FAKE, image, ...extra });
  }
  async function started(
    extra: Partial<Record<keyof SingularitySettings, unknown>> = {},
  ): Promise<SingularityTransport> {
    const t = new SingularityTransport(settings(extra), { taskId: 'Task #1/ü', hostCwd: root });
    open.push(t);
    await t.start();
    return t;
  }
  function calls(): string[] {
    return readFileSync(join(root, 'state', 'calls.log'), 'utf8')
      .trim()
      .split('\n');
  }

  it('starts an instance with the documented flags and a sanitised name', async () => {
    const t = await started({ bind: ['/data:/data'], extra_args: ['--nv'] });
    expect(t.name).toMatch(/^tether-task-1-[0-9a-f]{8}$/);
    expect(calls()).toContain(
      `instance start --containall --writable-tmpfs --bind /data:/data --nv ${image} ${t.name}`,
    );
    expect(t.workdir).toBe('/tmp');
    expect(await t.alive()).toBe(true);
  });

  it('runs sh -c in the workdir: stdout and stderr interleaved, exit code, env', async () => {
    const t = await started({ env: { GREETING: 'hello there' } });
    const r = await collect(t.spawn('pwd; echo "$GREETING"; echo oops >&2; exit 7'));
    expect(r.code).toBe(7);
    expect(r.output).toBe('/tmp\nhello there\noops\n');
  });

  it('binds the host cwd at the workdir with mount_cwd', async () => {
    const t = await started({ mount_cwd: true });
    expect(t.workdir).toBe(root);
    expect(calls().at(-1)).toContain(`--bind ${root}:${root}`);
    const r = await collect(t.spawn('pwd'));
    expect(r.output.trim()).toBe(root);
  });

  describeTransportCases('singularity (double: fake apptainer CLI)', {
    fresh: () => started(),
    // The fake CLI runs commands on this host, outside any instance: stopping the instance cannot end them.
    killsRunning: false,
    killFromOutside: (t) => {
      execFileSync(FAKE, ['instance', 'stop', (t as SingularityTransport).name]);
    },
  });

  it('a script exiting 255 on its own is a result, not a backend failure', async () => {
    const t = await started();
    expect((await collect(t.spawn('echo FATAL: just text; exit 255'))).code).toBe(255);
  });

  it('alive() turns false when the instance is stopped outside, and spawn rejects with Environment.Gone', async () => {
    const t = await started();
    execFileSync(FAKE, ['instance', 'stop', t.name]);
    expect(await t.alive()).toBe(false);
    const err = await t.spawn('echo hi').exited.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EnvironmentError);
    expect((err as EnvironmentError).code).toBe('Environment.Gone');
    expect((err as EnvironmentError).message).toContain(t.name);
    await t.close();
    await t.close();
  });

  it('close() stops the instance and is idempotent', async () => {
    const t = await started();
    await t.close();
    expect(calls().at(-1)).toBe(`instance stop ${t.name}`);
    const listed = execFileSync(FAKE, ['instance', 'list', '--json']).toString();
    expect(JSON.parse(listed)).toEqual({ instances: [] });
    await t.close();
    expect(await t.alive()).toBe(false);
  });

  it('start() with a missing image fails with Environment.Config naming the image', async () => {
    const t = new SingularityTransport(settings({ image: join(root, 'missing.sif') }), { taskId: 't', hostCwd: root });
    const err = await t.start().catch((e: unknown) => e);
    expect((err as EnvironmentError).code).toBe('Environment.Config');
    expect((err as EnvironmentError).message).toContain('missing.sif');
    await t.close();
  });

  it('a missing binary is Environment.Config on start and spawn', async () => {
    const t = new SingularityTransport(settings({ binary: join(root, 'no-such-apptainer') }), {
      taskId: 't',
      hostCwd: root,
    });
    const startErr = await t.start().catch((e: unknown) => e);
    expect((startErr as EnvironmentError).code).toBe('Environment.Config');
    expect((startErr as EnvironmentError).message).toContain('no-such-apptainer is not on PATH');
    const spawnErr = await t.spawn('true').exited.catch((e: unknown) => e);
    expect((spawnErr as EnvironmentError).code).toBe('Environment.Config');
    await t.close();
  });
});

describe('singularity settings and availability', () => {
  it('says which binary is missing and that the image is required', () => {
    const none = singularityBackend.settings.parse({ binary: 'no-such-apptainer-binary', image: 'x.sif' });
    expect(singularityBackend.unavailable?.(none)).toMatch(/no-such-apptainer-binary is not on PATH/);
    const noImage = singularityBackend.settings.parse({ binary: FAKE });
    expect(singularityBackend.unavailable?.(noImage)).toMatch(/terminal\.singularity\.image is not set/);
    expect(
      singularityBackend.unavailable?.(singularityBackend.settings.parse({ binary: FAKE, image: 'docker://alpine' })),
    ).toBeUndefined();
  });

  it('defaults the binary to apptainer when it is on PATH, else singularity', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tether-path-'));
    const saved = process.env['PATH'];
    try {
      process.env['PATH'] = dir;
      expect(singularityBackend.settings.parse({}).binary).toBe('singularity');
      symlinkSync(FAKE, join(dir, 'apptainer'));
      expect(singularityBackend.settings.parse({}).binary).toBe('apptainer');
    } finally {
      process.env['PATH'] = saved;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rejects misspelt keys and keeps defaults', () => {
    expect(() => singularityBackend.settings.parse({ imagee: 'x' })).toThrow();
    const s = singularityBackend.settings.parse({ image: 'x.sif' });
    expect(s).toMatchObject({
      contain: true,
      writable_tmpfs: true,
      mount_cwd: false,
      bind: [],
      env: {},
      extra_args: [],
    });
  });

  it('names instances from the task id', () => {
    expect(instanceName('...')).toMatch(/^tether-task-[0-9a-f]{8}$/);
    expect(instanceName('A'.repeat(100)).length).toBeLessThan(60);
  });
});

describeConformance('singularity (double: fake apptainer CLI)', async () => {
  const root = mkdtempSync(join(tmpdir(), 'tether-sing-conf-'));
  const image = join(root, 'image.sif');
  writeFileSync(image, 'not really a SIF');
  process.env['APPTAINER_FAKE_STATE'] = join(root, 'state');
  return {
    terminal: { backend: 'singularity', singularity: { binary: FAKE, image } },
    hostCwd: root,
    recreatedAfterBreak: true,
    // Instance names keep only the start of long task ids; the instance that ran the last command is the task's.
    breakEnvironment: async (taskId) => {
      const log = readFileSync(join(root, 'state', 'calls.log'), 'utf8');
      const name = [...log.matchAll(/instance:\/\/(\S+)/g)].at(-1)?.[1];
      if (!name || !readdirSync(join(root, 'state', 'instances')).includes(name))
        throw new Error(`no running instance for ${taskId}`);
      execFileSync(FAKE, ['instance', 'stop', name]);
    },
    stop: async () => rmSync(root, { recursive: true, force: true }),
  };
});
