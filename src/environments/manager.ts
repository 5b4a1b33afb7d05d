// The worker's environments, one per task and backend: made on first use, reused, checked before each use,
// recreated when gone, and closed when idle past terminal.lifetime_seconds or when the run ends. Worker-only.
import type { TerminalConfig } from '../config/config.js';
import type { Logger } from '../logging/logger.js';
import { resolveBackend } from './backends.js';
import { ShellEnvironment } from './shell-environment.js';
import { currentToolCall } from './tool-call-context.js';
import { passthroughEnvironment } from './command-env.js';

export interface Acquired {
  env: ShellEnvironment;
  /** Why this task's environment was made anew (its old one was lost), to tell the model; undefined otherwise. */
  recreated?: string;
}

interface AcquireOptions {
  /** The run's working directory on this machine. */
  hostCwd: string;
  /** Another backend than terminal.backend (`tether exec --backend`). */
  backend?: string;
  /** The task had an environment before (on this or another worker): if there is none here, say it was recreated. */
  expected?: boolean;
}

interface Slot {
  env: ShellEnvironment;
  lastUsed: number;
  busy: number;
}

export class EnvironmentManager {
  private readonly slots = new Map<string, Slot>();
  private readonly creating = new Map<string, Promise<Acquired>>();
  private readonly reaper: NodeJS.Timeout;

  constructor(
    private readonly opts: {
      terminal: TerminalConfig;
      workerId: string;
      log: Logger;
      unavailable?: string;
      warnings?: string[];
    },
  ) {
    const every = Math.min(30_000, Math.max(1_000, (opts.terminal.lifetime_seconds * 1000) / 4));
    this.reaper = setInterval(() => void this.reap(), every);
    this.reaper.unref();
  }

  get terminal(): TerminalConfig {
    return this.opts.terminal;
  }

  /** Why the configured backend cannot be used here (missing credentials or binary); the terminal tools hide then. */
  get unavailable(): string | undefined {
    return this.opts.unavailable;
  }

  /** What the worker should warn about at start (the local sandbox turned off, or not possible here). */
  get warnings(): string[] {
    return this.opts.warnings ?? [];
  }

  get workerId(): string {
    return this.opts.workerId;
  }

  private key(taskId: string, backend: string): string {
    return `${backend}\u0000${taskId}`;
  }

  /** Runs `fn` with the task's environment; the environment is not reaped while `fn` runs. */
  async use<T>(taskId: string, o: AcquireOptions, fn: (a: Acquired) => Promise<T>): Promise<T> {
    const backend = o.backend ?? this.opts.terminal.backend;
    const acquired = await this.acquire(taskId, backend, o);
    const slot = this.slots.get(this.key(taskId, backend));
    if (slot) slot.busy += 1;
    try {
      return await fn(acquired);
    } finally {
      if (slot) {
        slot.busy -= 1;
        slot.lastUsed = Date.now();
      }
    }
  }

  private async acquire(taskId: string, backend: string, o: AcquireOptions): Promise<Acquired> {
    const key = this.key(taskId, backend);
    const pending = this.creating.get(key);
    if (pending) return pending;
    const slot = this.slots.get(key);
    if (slot) {
      if (await slot.env.alive().catch(() => false)) return { env: slot.env };
      this.slots.delete(key);
      void slot.env.close().catch(() => undefined);
      return this.create(
        key,
        taskId,
        backend,
        o,
        `the ${backend} environment of this task was gone (stopped or removed from outside)`,
      );
    }
    const reason = o.expected ? `the worker that held this task's ${backend} environment was lost` : undefined;
    return this.create(key, taskId, backend, o, reason);
  }

  private create(
    key: string,
    taskId: string,
    backend: string,
    o: AcquireOptions,
    lost: string | undefined,
  ): Promise<Acquired> {
    const made = (async (): Promise<Acquired> => {
      const { definition, settings } = await resolveBackend(this.opts.terminal, backend);
      const transport = definition.create(settings, {
        taskId,
        hostCwd: o.hostCwd,
        workerId: this.opts.workerId,
        log: this.opts.log,
        workflowId: currentToolCall()?.workflowId,
      });
      const guarded = backend === 'local' && !transport.diesWithWorker;
      const env = new ShellEnvironment(transport, {
        // What a person named of the worker's variables, then terminal.env's values: every backend gets the same.
        env: { ...passthroughEnvironment(this.opts.terminal.env_passthrough), ...this.opts.terminal.env },
        guardPid: guarded ? process.pid : undefined,
      });
      try {
        await env.start();
      } catch (err) {
        await transport.close().catch(() => undefined);
        throw err;
      }
      this.slots.set(key, { env, lastUsed: Date.now(), busy: 0 });
      this.opts.log.info({ taskId, backend, recreated: lost }, 'environment created');
      const recreated = lost
        ? `${lost}; this command ran in a new environment, so earlier cd, export and background processes are gone`
        : undefined;
      return { env, recreated };
    })();
    this.creating.set(key, made);
    return made.finally(() => this.creating.delete(key));
  }

  has(taskId: string, backend = this.opts.terminal.backend): boolean {
    return this.slots.has(this.key(taskId, backend));
  }

  /** The task's environment when this worker holds one, without making one or marking it used. */
  peek(taskId: string, backend = this.opts.terminal.backend): ShellEnvironment | undefined {
    return this.slots.get(this.key(taskId, backend))?.env;
  }

  /** Closes every environment of the task (the run ended). */
  async release(taskId: string): Promise<number> {
    let closed = 0;
    for (const [key, slot] of [...this.slots]) {
      if (!key.endsWith(`\u0000${taskId}`)) continue;
      this.slots.delete(key);
      await slot.env
        .close()
        .catch((err: unknown) => this.opts.log.warn({ taskId, err: String(err) }, 'environment close failed'));
      closed += 1;
    }
    return closed;
  }

  /** Closes environments unused for longer than terminal.lifetime_seconds (one with a background process running stays). */
  async reap(now = Date.now()): Promise<number> {
    let closed = 0;
    for (const [key, slot] of [...this.slots]) {
      if (
        slot.busy > 0 ||
        slot.env.processes.running > 0 ||
        now - slot.lastUsed < this.opts.terminal.lifetime_seconds * 1000
      )
        continue;
      this.slots.delete(key);
      this.opts.log.info({ backend: slot.env.backend }, 'idle environment closed');
      await slot.env.close().catch(() => undefined);
      closed += 1;
    }
    return closed;
  }

  async closeAll(): Promise<void> {
    clearInterval(this.reaper);
    const all = [...this.slots.values()];
    this.slots.clear();
    await Promise.all(all.map((s) => s.env.close().catch(() => undefined)));
  }
}
