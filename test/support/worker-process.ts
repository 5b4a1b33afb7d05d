// Runs `tether worker` (the compiled CLI) as a separate process, so a test can SIGKILL it like a crash.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, inject } from 'vitest';
import { cliPath } from './cli.js';
import type { ScriptedModel } from './scripted-model.js';

export interface WorkerProcess {
  child: ChildProcess;
  output(): string;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export async function startWorkerProcess(env: Record<string, string>, args: string[] = []): Promise<WorkerProcess> {
  const child = spawn('node', [cliPath, 'worker', ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const deadline = Date.now() + 60_000;
  while (!out.includes('tether worker ·')) {
    if (child.exitCode !== null) throw new Error(`worker exited with ${child.exitCode}: ${out}`);
    if (Date.now() > deadline) throw new Error(`worker did not start in time: ${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    output: () => out,
    kill: async (signal = 'SIGKILL') => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill(signal);
      await exited;
    },
  };
}

/** The environment of `tether worker` processes for one test: a task queue of its own, the scripted model, a fresh TETHER_HOME. */
export function workerEnv(
  address: string,
  modelUrl: string,
  name: string,
): { env: Record<string, string>; taskQueue: string } {
  const taskQueue = `${name}-${randomUUID()}`;
  return {
    taskQueue,
    env: {
      TEMPORAL_ADDRESS: address,
      TETHER_TASK_QUEUE: taskQueue,
      OPENAI_BASE_URL: modelUrl,
      OPENAI_API_KEY: 'test-key',
      TETHER_HOME: mkdtempSync(join(tmpdir(), `tether-${name}-home-`)),
    },
  };
}

/** Starts workers and remembers them, so a test file can kill whatever is left in afterAll. */
export class WorkerPool {
  private readonly all: WorkerProcess[] = [];

  async start(env: Record<string, string>, args: string[] = []): Promise<WorkerProcess> {
    const w = await startWorkerProcess(env, args);
    this.all.push(w);
    return w;
  }

  async killAll(): Promise<void> {
    for (const w of this.all) await w.kill();
  }
}

/**
 * For a test file that runs worker processes: a Temporal client on the shared dev server, a pool whose workers
 * are killed after the file's tests, and a list of the scripted models to close then.
 */
export function workerProcessSuite(): { client: () => Client; workers: WorkerPool; models: ScriptedModel[] } {
  let connection: Connection | undefined;
  let client: Client | undefined;
  const workers = new WorkerPool();
  const models: ScriptedModel[] = [];
  beforeAll(async () => {
    connection = await Connection.connect({ address: inject('temporalAddress') });
    client = new Client({ connection });
  });
  afterAll(async () => {
    await workers.killAll();
    for (const m of models) await m.close();
    await connection?.close();
  });
  return {
    client: () => {
      if (!client) throw new Error('workerProcessSuite: the client exists only inside tests');
      return client;
    },
    workers,
    models,
  };
}
