// Benchmark (not a test): the durable agent loop on a local dev server. Run: npm run bench:loop
import { randomUUID } from 'node:crypto';
import proto from '@temporalio/proto';
import { z } from 'zod';
import { registry } from '../src/registry/index.js';
import { agentWorkflow } from '../src/workflows/agent-workflow.js';
import { startScriptedModel, type Step } from '../test/support/scripted-model.js';
import { durableEnv } from './durable-env.js';
import { fmt, machine, summary } from './stats.js';

const ms = (t: { seconds?: unknown; nanos?: number | null } | null | undefined): number =>
  Number(t?.seconds ?? 0) * 1000 + (t?.nanos ?? 0) / 1e6;

registry.register({
  name: 'bench_noop',
  toolset: 'bench',
  description: 'nothing',
  schema: z.object({}),
  handler: () => '{}',
});
registry.register({
  name: 'bench_sleep',
  toolset: 'bench',
  description: 'sleeps',
  schema: z.object({ ms: z.number() }),
  parallelSafe: true,
  sideEffects: 'read-only',
  handler: async ({ ms: wait }) => {
    await new Promise((r) => setTimeout(r, wait));
    return '{}';
  },
});

const env = await durableEnv();
const { client } = env;
const taskQueue = `bench-${randomUUID()}`;

async function run(script: Step[], limits: Record<string, number> = {}): Promise<{ id: string; wallMs: number }> {
  const model = await startScriptedModel(script);
  const worker = await env.worker(taskQueue, model.url);
  const id = `bench-${randomUUID()}`;
  const t0 = performance.now();
  await worker.runUntil(
    client.workflow.execute(agentWorkflow, {
      taskQueue,
      workflowId: id,
      args: [{ task: 'bench', model: 'scripted', cwd: process.cwd(), limits }],
    }),
  );
  const wallMs = performance.now() - t0;
  await model.close();
  if (model.errors.length > 0) throw new Error(model.errors.join('; '));
  return { id, wallMs };
}

async function history(id: string) {
  return client.workflow.getHandle(id).fetchHistory();
}

// 1. Per-call overhead: 200 sequential no-op calls in one turn; the gap between consecutive schedules is one full
//    durable round trip (activity task + result + workflow task that schedules the next call).
const calls = 200;
const seq = await run(
  [{ toolCalls: Array.from({ length: calls }, () => ({ name: 'bench_noop', arguments: {} })) }, { content: 'done' }],
  { maxToolCallsPerTurn: calls },
);
const scheduled = (await history(seq.id))
  .events!.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'runTool')
  .map((e) => ms(e.eventTime));
const gaps = scheduled.slice(1).map((t, i) => t - scheduled[i]!);
const durable = summary(gaps);
const inproc: number[] = [];
for (let i = 0; i < 20_000; i += 1) {
  const t0 = process.hrtime.bigint();
  await registry.dispatch('bench_noop', '{}', { taskId: 'b', cwd: process.cwd() });
  inproc.push(Number(process.hrtime.bigint() - t0) / 1e6);
}
const local = summary(inproc.slice(5_000));

// 2. Eight parallel 1-second calls.
const par = await run([
  { toolCalls: Array.from({ length: 8 }, () => ({ name: 'bench_sleep', arguments: { ms: 1000 } })) },
  { content: 'done' },
]);
const parEvents = (await history(par.id)).events!;
const firstScheduled = Math.min(
  ...parEvents
    .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'runTool')
    .map((e) => ms(e.eventTime)),
);
const lastCompleted = Math.max(
  ...parEvents.filter((e) => e.activityTaskCompletedEventAttributes).map((e) => ms(e.eventTime)),
);

// 3. History growth: 20 turns of one tool call each.
const turns = 20;
const long = await run([
  ...Array.from({ length: turns - 1 }, () => ({ toolCalls: [{ name: 'bench_noop', arguments: {} }] })),
  { content: 'done' },
]);
const longHistory = await history(long.id);
const bytes = proto.temporal.api.history.v1.History.encode(longHistory).finish().length;

console.log(`bench:loop on ${machine()}, temporal dev server (in memory)`);
console.log(
  `per tool call, durable path (${durable.n} sequential no-op calls): median ${fmt(durable.median)} ms, p99 ${fmt(durable.p99)} ms`,
);
console.log(
  `per tool call, registry in-process (${local.n} calls): median ${fmt(local.median * 1000)} µs, p99 ${fmt(local.p99 * 1000)} µs`,
);
console.log(
  `8 parallel 1-second tool calls: ${fmt((lastCompleted - firstScheduled) / 1000, 3)} s from first schedule to last completion (ideal 1 s)`,
);
console.log(
  `history: ${longHistory.events!.length} events and ${bytes} bytes for ${turns} turns: ${fmt(longHistory.events!.length / turns, 1)} events and ${Math.round(bytes / turns)} bytes per turn`,
);

registry.unregister('bench_noop');
registry.unregister('bench_sleep');
await env.close();
