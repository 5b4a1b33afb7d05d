// Benchmark (not a test): a 1,000-turn run on a local dev server: history per turn, continue-as-new count, and the
// time per turn early and late in the run. Run: npm run bench:long
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentResult, AgentState } from '../src/common/types.js';
import { longRunScript, runHistories } from '../test/support/long-run.js';
import { startScriptedModel, type ChatRequest, type Step } from '../test/support/scripted-model.js';
import { durableEnv } from './durable-env.js';
import { fmt, machine, summary } from './stats.js';

const turns = 1_000;
const { steps, summariser } = longRunScript(turns);
// When each turn's model request arrived (turn n = the n-th distinct request of the main model).
const arrivals: number[] = [];
const timed: Step[] = steps.map((step) => (req: ChatRequest) => {
  arrivals.push(performance.now());
  return typeof step === 'function' ? step(req) : step;
});
const model = await startScriptedModel(timed, { summariser });
const env = await durableEnv();
const taskQueue = `bench-long-${randomUUID()}`;
const workflowId = `bench-long-${randomUUID()}`;
const worker = await env.worker(taskQueue, model.url);
const t0 = performance.now();
const { result, state } = await worker.runUntil(async () => {
  const handle = await env.client.workflow.start('agentWorkflow', {
    taskQueue,
    workflowId,
    args: [
      {
        task: 'count to a thousand',
        model: 'scripted',
        cwd: mkdtempSync(join(tmpdir(), 'tether-bench-long-')),
        limits: { maxTurns: 1_200, continueAsNewAfterEvents: 2_000 },
        compaction: { thresholdChars: 6_000, keepRecentMessages: 6, model: 'summariser' },
      },
    ],
  });
  const r = (await handle.result()) as AgentResult;
  return { result: r, state: await handle.query<AgentState>('state') };
});
const wall = (performance.now() - t0) / 1000;
const runs = await runHistories(env.client, workflowId);
await model.close();
await env.close();
if (result.turns !== turns) throw new Error(`expected ${turns} turns, got ${result.turns}`);

const events = runs.reduce((n, r) => n + r.events, 0);
const bytes = runs.reduce((n, r) => n + r.bytes, 0);
const gaps = arrivals.slice(1).map((t, i) => t - arrivals[i]!);
const early = summary(gaps.slice(5, 15));
const late = summary(gaps.slice(-10));
process.stdout.write(
  [
    `long-run benchmark · ${machine()}`,
    `${turns} turns in ${fmt(wall, 1)} s: ${runs.length} runs (${state.continuedRuns} continue-as-new), ${state.compactions} compactions`,
    `history: ${fmt(events / turns, 1)} events and ${fmt(bytes / turns / 1024, 1)} KiB per turn; largest run ${Math.max(...runs.map((r) => r.events))} events, ${fmt(Math.max(...runs.map((r) => r.bytes)) / 1024 / 1024, 2)} MiB`,
    `time per turn: ${fmt(early.median, 1)} ms median around turn 10, ${fmt(late.median, 1)} ms median over the last 10 turns`,
    'reproduce: npm run bench:long',
  ].join('\n') + '\n',
);
