// Benchmark (not a test): batch throughput, runs per minute for 100 scripted runs on one worker. Run: npm run bench:batch
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { runBatch } from '../src/batch/batch-runner.js';
import { registry } from '../src/registry/index.js';
import { startScriptedModel } from '../test/support/scripted-model.js';
import { durableEnv } from './durable-env.js';
import { fmt, machine } from './stats.js';

const RUNS = 100;
registry.register({
  name: 'bench_noop',
  toolset: 'bench',
  description: 'nothing',
  schema: z.object({}),
  parallelSafe: true,
  sideEffects: 'read-only',
  handler: () => '{}',
});

const env = await durableEnv();
const { client } = env;
// Each run: one tool call, then the answer (two model calls, one tool call).
const model = await startScriptedModel([{ toolCalls: [{ name: 'bench_noop', arguments: {} }] }, { content: 'done' }]);

console.log(`bench:batch on ${machine()}, temporal dev server (in memory), one worker`);
for (const concurrency of [1, 10, 50]) {
  const taskQueue = `bench-batch-${randomUUID()}`;
  const worker = await env.worker(taskQueue, model.url, 100);
  const items = Array.from({ length: RUNS }, (_, i) => ({
    item: { line: i + 1, task: `task ${i + 1}`, source: `task ${i + 1}` },
    input: { task: `task ${i + 1}`, model: 'scripted', cwd: process.cwd() },
  }));
  const t0 = performance.now();
  const { results } = await worker.runUntil(
    runBatch({ client, taskQueue, batchKey: randomUUID(), items, concurrency }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const ok = results.filter((r) => r.status === 'completed').length;
  console.log(
    `concurrency ${String(concurrency).padStart(2)}: ${RUNS} runs (${ok} completed) in ${fmt(seconds, 1)} s = ${fmt((RUNS / seconds) * 60, 0)} runs/minute`,
  );
}
if (model.errors.length > 0) throw new Error(model.errors.join('; '));
await model.close();
await env.close();
