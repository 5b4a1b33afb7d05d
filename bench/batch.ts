// Benchmark (not a test): batch throughput, runs per minute for 100 scripted runs on one worker. Run: npm run bench:batch
import { randomUUID } from 'node:crypto';
import { cpus } from 'node:os';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection } from '@temporalio/worker';
import { z } from 'zod';
import { runBatch } from '../src/batch/batch-runner.js';
import { registry } from '../src/registry/index.js';
import { freePort, startDevServer } from '../src/temporal/dev-server.js';
import { createWorker, installRuntimeLogging, workflowsPath } from '../src/worker.js';
import type { Logger } from '../src/logging/logger.js';
import { startScriptedModel } from '../test/support/scripted-model.js';
import { fmt } from './stats.js';

const RUNS = 100;
const silent: Logger = { warn: () => {}, info: () => {}, error: () => {}, debug: () => {} };
registry.register({ name: 'bench_noop', toolset: 'bench', description: 'nothing', schema: z.object({}), parallelSafe: true, sideEffects: 'read-only', handler: () => '{}' });

installRuntimeLogging();
const server = await startDevServer({ port: await freePort(), headless: true });
const connection = await Connection.connect({ address: server.address });
const client = new Client({ connection });
const native = await NativeConnection.connect({ address: server.address });
const bundle = await bundleWorkflowCode({ workflowsPath: workflowsPath(), logger: undefined });
// Each run: one tool call, then the answer (two model calls, one tool call).
const model = await startScriptedModel([{ toolCalls: [{ name: 'bench_noop', arguments: {} }] }, { content: 'done' }]);

console.log(`bench:batch on ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, node ${process.version}, temporal dev server (in memory), one worker`);
for (const concurrency of [1, 10, 50]) {
  const taskQueue = `bench-batch-${randomUUID()}`;
  const { worker } = await createWorker({
    settings: { address: server.address, namespace: 'default', taskQueue, embedded: false },
    connection: native,
    workflowBundle: bundle,
    model: { openai: { baseURL: model.url, apiKey: 'bench' } },
    config: { files: { allow_outside_cwd: false } },
    log: silent,
    maxConcurrentActivities: 100,
  });
  const items = Array.from({ length: RUNS }, (_, i) => ({
    item: { line: i + 1, task: `task ${i + 1}`, source: `task ${i + 1}` },
    input: { task: `task ${i + 1}`, model: 'scripted', cwd: process.cwd() },
  }));
  const t0 = performance.now();
  const { results } = await worker.runUntil(runBatch({ client, taskQueue, batchKey: randomUUID(), items, concurrency }));
  const seconds = (performance.now() - t0) / 1000;
  const ok = results.filter((r) => r.status === 'completed').length;
  console.log(`concurrency ${String(concurrency).padStart(2)}: ${RUNS} runs (${ok} completed) in ${fmt(seconds, 1)} s = ${fmt((RUNS / seconds) * 60, 0)} runs/minute`);
}
if (model.errors.length > 0) throw new Error(model.errors.join('; '));
await model.close();
await connection.close();
await native.close();
await server.stop();
