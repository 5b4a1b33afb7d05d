import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../config/config.js';
import { lazyLogger } from '../logging/logger.js';
import { LocalTransport } from './backends/local/transport.js';
import { EnvironmentManager } from './manager.js';
import { registerEnvironmentProvider } from './providers.js';

/** A local transport whose environment can be made to vanish, as a killed container does. */
class Vanishing extends LocalTransport {
  static made: Vanishing[] = [];
  gone = false;
  closed = 0;
  constructor(cwd: string) {
    super(cwd);
    Vanishing.made.push(this);
  }
  override async alive(): Promise<boolean> {
    return !this.gone;
  }
  override async close(): Promise<void> {
    this.closed += 1;
  }
}
registerEnvironmentProvider('vanishing', ({ cwd }) => new Vanishing(cwd), 'manager.test.ts');

const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-manager-')));
let manager: EnvironmentManager;
const make = (lifetime = 300): EnvironmentManager =>
  (manager = new EnvironmentManager({
    terminal: parseConfig({ terminal: { backend: 'vanishing', lifetime_seconds: lifetime } }).terminal,
    workerId: 'w',
    log: lazyLogger,
  }));

afterEach(async () => {
  await manager.closeAll();
  Vanishing.made = [];
});

describe('EnvironmentManager', () => {
  it('makes one environment per task and reuses it', async () => {
    make();
    const a1 = await manager.use('a', { hostCwd: cwd }, async ({ env }) => env);
    const a2 = await manager.use('a', { hostCwd: cwd }, async ({ env }) => env);
    const b = await manager.use('b', { hostCwd: cwd }, async ({ env }) => env);
    expect(a1).toBe(a2);
    expect(b).not.toBe(a1);
    expect(Vanishing.made).toHaveLength(2);
  });

  it('makes one environment for concurrent first uses of a task', async () => {
    make();
    const envs = await Promise.all([1, 2, 3].map(() => manager.use('a', { hostCwd: cwd }, async ({ env }) => env)));
    expect(new Set(envs).size).toBe(1);
    expect(Vanishing.made).toHaveLength(1);
  });

  it('recreates an environment that is gone and says why', async () => {
    make();
    await manager.use('a', { hostCwd: cwd }, async () => undefined);
    Vanishing.made[0]!.gone = true;
    const recreated = await manager.use('a', { hostCwd: cwd }, async ({ recreated }) => recreated);
    expect(recreated).toMatch(
      /vanishing environment of this task was gone.*earlier cd, export and background processes are gone/,
    );
    expect(Vanishing.made).toHaveLength(2);
    expect(await manager.use('a', { hostCwd: cwd }, async ({ recreated }) => recreated)).toBeUndefined();
  });

  it('says the environment was lost when the task had one on another worker', async () => {
    make();
    expect(await manager.use('a', { hostCwd: cwd, expected: true }, async ({ recreated }) => recreated)).toMatch(
      /worker that held this task's vanishing environment was lost/,
    );
  });

  it('reaps idle environments, not busy ones nor ones with a running background process', async () => {
    make(1);
    await manager.use('idle', { hostCwd: cwd }, async () => undefined);
    await manager.use('bg', { hostCwd: cwd }, async ({ env }) => env.processes.start('sleep 30', {}));
    let reapedWhileBusy = -1;
    await manager.use('busy', { hostCwd: cwd }, async () => {
      reapedWhileBusy = await manager.reap(Date.now() + 5_000);
    });
    expect(reapedWhileBusy).toBe(1); // only 'idle'
    expect(manager.has('idle')).toBe(false);
    expect(manager.has('bg')).toBe(true);
    expect(manager.has('busy')).toBe(true);
    expect(await manager.reap(Date.now() + 5_000)).toBe(1); // 'busy', now idle
  });

  it("closes a task's environments when its run ends", async () => {
    make();
    await manager.use('a', { hostCwd: cwd }, async () => undefined);
    expect(await manager.release('a')).toBe(1);
    expect(Vanishing.made[0]!.closed).toBe(1);
    expect(manager.has('a')).toBe(false);
    expect(await manager.release('a')).toBe(0);
  });
});
