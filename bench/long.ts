// Benchmark (not a test): history size against the content a run produced, and a 1,000-turn run, on a local dev
// server: 40 turns of 2.5 KB tool results with a 5 KB task (`npm run bench:long -- --task-only` runs this alone), the
// same with a short task and with the whole conversation recorded per call (as before the conversation cache), 400
// such turns (compaction, continue-as-new), 200 turns of tiny terminal commands, then 1,000 turns of tiny `todo` calls
// with time per turn early and late.
// Run: npm run bench:long
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentInput, AgentResult, AgentState } from '../src/common/types.js';
import { historyBreakdown, producedBytes, readingScript, writeReadable } from '../test/support/history-size.js';
import { echoScript, longRunScript, runHistories } from '../test/support/long-run.js';
import { startScriptedModel, type ChatRequest, type Step } from '../test/support/scripted-model.js';
import { durableEnv } from './durable-env.js';
import { fmt, machine, summary } from './stats.js';

const env = await durableEnv();
const lines: string[] = [`long-run benchmark · ${machine()}`];
const kib = (bytes: number): string => `${fmt(bytes / 1024, 1)} KiB`;

interface Measured {
  result: AgentResult;
  state: AgentState;
  historyBytes: number;
  content: number;
  runs: number;
  arrivals: number[];
  wall: number;
  workflowId: string;
}

async function measure(
  steps: Step[],
  summariser: Step,
  input: Omit<AgentInput, 'model' | 'cwd'>,
  cwd: string,
): Promise<Measured> {
  // When each main-model request arrived, for time per turn.
  const arrivals: number[] = [];
  const timed: Step[] = steps.map((step) => (req: ChatRequest) => {
    arrivals.push(performance.now());
    return typeof step === 'function' ? step(req) : step;
  });
  const model = await startScriptedModel(timed, { summariser });
  const taskQueue = `bench-long-${randomUUID()}`;
  const workflowId = `bench-long-${randomUUID()}`;
  const worker = await env.worker(taskQueue, model.url);
  const t0 = performance.now();
  const { result, state } = await worker.runUntil(async () => {
    const handle = await env.client.workflow.start('agentWorkflow', {
      taskQueue,
      workflowId,
      args: [{ model: 'scripted', cwd, ...input }],
    });
    const r = (await handle.result()) as AgentResult;
    return { result: r, state: await handle.query<AgentState>('state') };
  });
  const wall = (performance.now() - t0) / 1000;
  await model.close();
  let runs = await runHistories(env.client, workflowId);
  // Visibility lists a closed run shortly after it closes.
  for (let i = 0; i < 50 && runs.length < state.continuedRuns + 1; i += 1) {
    await new Promise((r) => setTimeout(r, 200));
    runs = await runHistories(env.client, workflowId);
  }
  const historyBytes = runs.reduce((n, r) => n + r.bytes, 0);
  const content = producedBytes(model.requests, 'scripted', result.answer);
  return { result, state, historyBytes, content, runs: runs.length, arrivals, wall, workflowId };
}

function report(label: string, m: Measured): void {
  lines.push(
    `${label}: ${m.result.turns} turns in ${fmt(m.wall, 1)} s (${m.runs} runs, ${m.state.compactions} compactions): ` +
      `history ${kib(m.historyBytes)} = ${kib(m.historyBytes / m.result.turns)} per turn; ` +
      `content ${kib(m.content)} = ${kib(m.content / m.result.turns)} per turn; ratio ${fmt(m.historyBytes / m.content, 2)}x`,
  );
}

/** Bytes per turn by event type (and activity type), largest first. */
function byEvent(parts: Record<string, number>, turns: number): string {
  return Object.entries(parts)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 10)
    .map(([k, v]) => `${k.replace('EVENT_TYPE_', '').toLowerCase()} ${fmt(v / turns, 0)}`)
    .join(', ');
}

async function reading(turns: number, extra: Partial<AgentInput> = {}): Promise<Measured> {
  const cwd = mkdtempSync(join(tmpdir(), 'tether-bench-long-'));
  const path = writeReadable(cwd, turns);
  const m = await measure(
    readingScript(turns, path),
    { content: 'Earlier turns read data.txt forty lines at a time.' },
    {
      task: extra.task ?? 'read data.txt until told to stop',
      limits: { maxTurns: turns + 10, ...extra.limits },
      compaction: { model: 'summariser' },
    },
    cwd,
  );
  if (m.result.turns !== turns) throw new Error(`expected ${turns} turns, got ${m.result.turns}`);
  return m;
}

/** A 5 KB task: every tool call's input used to carry it (userTask), so history grew with it × tool calls. */
const longTask = `read data.txt until told to stop. ${'Background the reader may need. '.repeat(160)}`.slice(0, 5_000);
const withTask = await reading(40, { task: longTask });
report('40 turns, 2.5 KB tool results, 5 KB task', withTask);
// `npm run bench:long -- --task-only` stops here (the task text case alone).
if (process.argv.includes('--task-only')) {
  await env.close();
  process.stdout.write(`${lines.join('\n')}\n`);
  process.exit(0);
}
const short = await reading(40);
report('40 turns, 2.5 KB tool results', short);
const before = await reading(40, { limits: { wholeConversationInHistory: true } });
report('  the same, whole conversation per call (as before)', before);
const longer = await reading(400);
report('400 turns, 2.5 KB tool results', longer);
const parts = await historyBreakdown(env.client, longer.workflowId);
const top = Object.entries(parts)
  .sort((a, b) => b[1] - a[1])
  .slice(0, 6)
  .map(([k, v]) => `${k.replace('EVENT_TYPE_', '').toLowerCase()} ${fmt((100 * v) / longer.historyBytes, 0)}%`);
lines.push(`  where the 400-turn history goes: ${top.join(', ')}`);

// Tiny tool turns: each turn runs `echo N` in the terminal (a tool activity as well as a model call), so the run
// shows the floor of a turn that changes the world, beside the todo turns' floor (a model call alone).
const terminalTurns = 200;
const echo = await measure(
  echoScript(terminalTurns),
  { content: 'Earlier turns echoed the turn counter.' },
  { task: 'echo the turn counter until told to stop', limits: { maxTurns: terminalTurns + 10 } },
  mkdtempSync(join(tmpdir(), 'tether-bench-long-')),
);
if (echo.result.turns !== terminalTurns) throw new Error(`expected ${terminalTurns} turns, got ${echo.result.turns}`);
report(`${terminalTurns} turns of tiny terminal commands`, echo);
const echoParts = await historyBreakdown(env.client, echo.workflowId);
lines.push(`  bytes per tiny terminal turn by event: ${byEvent(echoParts, echo.result.turns)}`);

const turns = 1_000;
const { steps, summariser } = longRunScript(turns);
const tiny = await measure(
  steps,
  summariser,
  {
    task: 'count to a thousand',
    limits: { maxTurns: 1_200, continueAsNewAfterEvents: 2_000 },
    compaction: { thresholdChars: 6_000, keepRecentMessages: 6, model: 'summariser' },
  },
  mkdtempSync(join(tmpdir(), 'tether-bench-long-')),
);
// Per turn by event type: the floor a turn costs whatever it produces (docs/durability.md, "History size").
const tinyParts = await historyBreakdown(env.client, tiny.workflowId);
await env.close();
if (tiny.result.turns !== turns) throw new Error(`expected ${turns} turns, got ${tiny.result.turns}`);
report('1,000 turns of tiny todo calls', tiny);
lines.push(`  bytes per tiny turn by event: ${byEvent(tinyParts, tiny.result.turns)}`);
const gaps = tiny.arrivals.slice(1).map((t, i) => t - tiny.arrivals[i]!);
lines.push(
  `  time per turn: ${fmt(summary(gaps.slice(5, 15)).median, 1)} ms median around turn 10, ` +
    `${fmt(summary(gaps.slice(-10)).median, 1)} ms median over the last 10 turns`,
  'reproduce: npm run bench:long',
);
process.stdout.write(`${lines.join('\n')}\n`);
