// Benchmark (not a test): one live worker under CPU starvation. N runs start at once on one `tether worker` process,
// each with one world-changing `terminal` call (a marker line per call, then a sleep), while CPU hogs keep the
// machine's cores busy; prints how many calls came back as lost although their worker never died, how many commands
// ran other than exactly once, and how many runs completed.
// Run: npm run bench:busy-worker [-- --runs 100 --hogs 8 --sleep 3]
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { freePort, startDevServer } from '../src/temporal/dev-server.js';
import { startScriptedModel, type ChatRequest } from '../test/support/scripted-model.js';
import { fmt, machine, summary } from './stats.js';

const { EventType } = proto.temporal.api.enums.v1;

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const value = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isFinite(value) || value < 0) throw new Error(`--${name} takes a number`);
  return value;
}

const RUNS = flag('runs', 100);
const HOGS = flag('hogs', 8);
const SLEEP = flag('sleep', 3);
const cli = fileURLToPath(new URL('../dist/client.js', import.meta.url));
if (!existsSync(cli)) throw new Error('dist/client.js is missing: run npm run build first');

const markers = mkdtempSync(join(tmpdir(), 'tether-bench-busy-'));
/** Run i's command: one line in its own marker file, then the sleep. */
const command = (i: string): string => `echo ran >> ${join(markers, `${i}.txt`)}; sleep ${SLEEP}`;
const runOf = (req: ChatRequest): string =>
  /run (\d+)/.exec(req.messages.find((m) => m.role === 'user')?.content ?? '')?.[1] ?? 'x';
const model = await startScriptedModel([
  (req) => ({ toolCalls: [{ name: 'terminal', arguments: { command: command(runOf(req)) } }] }),
  { content: 'done' },
]);

const server = await startDevServer({ port: await freePort(), headless: true });
const connection = await Connection.connect({ address: server.address });
const client = new Client({ connection });
const taskQueue = `bench-busy-${randomUUID()}`;
const home = mkdtempSync(join(tmpdir(), 'tether-bench-busy-home-'));
const worker: ChildProcess = spawn('node', [cli, 'worker'], {
  env: {
    ...process.env,
    TEMPORAL_ADDRESS: server.address,
    TETHER_TASK_QUEUE: taskQueue,
    OPENAI_BASE_URL: model.url,
    OPENAI_API_KEY: 'bench',
    TETHER_HOME: home,
  },
  stdio: ['ignore', 'pipe', 'pipe'],
});
let out = '';
worker.stdout!.on('data', (c: Buffer) => (out += c.toString()));
worker.stderr!.on('data', (c: Buffer) => (out += c.toString()));
while (!out.includes('tether worker ·')) {
  if (worker.exitCode !== null) throw new Error(`worker exited: ${out}`);
  await new Promise((r) => setTimeout(r, 100));
}

const hogs = Array.from({ length: HOGS }, () => spawn('node', ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
// Stopped early (Ctrl-C, a timeout): nothing of the bench's is left running.
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    for (const p of [worker, ...hogs]) p.kill('SIGKILL');
    void server.stop().finally(() => process.exit(1));
  });
const started = Date.now();
const handles = await Promise.all(
  Array.from({ length: RUNS }, (_, i) =>
    client.workflow.start('agentWorkflow', {
      taskQueue,
      workflowId: `bench-busy-${i}-${randomUUID()}`,
      args: [{ task: `run ${i}`, model: 'scripted', cwd: markers }],
    }),
  ),
);
const outcomes = await Promise.allSettled(handles.map((h) => h.result()));
const wallS = (Date.now() - started) / 1000;
for (const h of hogs) h.kill('SIGKILL');

// What each run's model was told of its call, read from the request after the call (a model call asked again sends
// the same result: one per run).
const told = new Map<string, string>();
for (const r of model.requests) {
  const tool = r.messages.find((m) => m.role === 'tool')?.content;
  if (typeof tool === 'string') told.set(runOf(r), tool);
}
const toolResults = [...told].map(([run, tool]) => ({ run, tool }));
const lost = toolResults.filter((r) => /"interrupted":true|did not complete|was lost/.test(r.tool));
const lines = new Map<string, number>();
for (const f of readdirSync(markers).filter((f) => f.endsWith('.txt')))
  lines.set(f.replace(/\.txt$/, ''), readFileSync(join(markers, f), 'utf8').split('\n').filter(Boolean).length);
const notOnce = Array.from({ length: RUNS }, (_, i) => String(i)).filter((i) => lines.get(i) !== 1);
const completed = outcomes.filter(
  (o) => o.status === 'fulfilled' && (o.value as { status?: string }).status === 'completed',
);

// How often a tool call's attempt timed out on the server (the worker was alive throughout), and how long calls
// waited between being scheduled and being started (last attempt), by activity.
let timedOut = 0;
let attempts = 0;
const waits: Record<string, number[]> = {};
const ms = (t: { seconds?: unknown; nanos?: number | null } | null | undefined): number =>
  Number(t?.seconds ?? 0) * 1000 + Math.floor((t?.nanos ?? 0) / 1e6);
for (const h of handles) {
  const events = (await h.fetchHistory()).events ?? [];
  const scheduledAt = new Map<string, { type: string; at: number }>();
  for (const e of events) {
    if (e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT) timedOut += 1;
    const s = e.activityTaskScheduledEventAttributes;
    if (s) scheduledAt.set(String(e.eventId), { type: s.activityType?.name ?? '?', at: ms(e.eventTime) });
    const a = e.activityTaskStartedEventAttributes;
    if (a && (a.attempt ?? 1) > 1) attempts += (a.attempt ?? 1) - 1;
    const from = a ? scheduledAt.get(String(a.scheduledEventId)) : undefined;
    if (from && (a?.attempt ?? 1) === 1) (waits[from.type] ??= []).push(ms(e.eventTime) - from.at);
  }
}
const workerAlive = worker.exitCode === null && worker.signalCode === null;
// The worker's peak resident memory (Linux), to see that keeping calls alive costs no unbounded memory.
const peakMiB = (() => {
  try {
    const kb = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${worker.pid}/status`, 'utf8'))?.[1];
    return kb ? Math.round(Number(kb) / 1024) : undefined;
  } catch {
    return undefined;
  }
})();
worker.kill('SIGTERM');
await new Promise((r) => worker.once('exit', r));
await model.close();
await connection.close();
await server.stop();

process.stdout.write(
  `busy-worker benchmark · ${machine()} · ${RUNS} runs at once on one worker, one ${SLEEP} s terminal call each, ${HOGS} CPU hogs\n` +
    `  calls reported lost: ${lost.length} of ${toolResults.length} (the worker ${workerAlive ? 'never died' : 'DIED'})\n` +
    `  commands not run exactly once: ${notOnce.length}${
      notOnce.length
        ? ` (runs ${notOnce.slice(0, 10).join(', ')}${notOnce.length > 10 ? ', …' : ''}: ${notOnce
            .slice(0, 10)
            .map((i) => lines.get(i) ?? 0)
            .join(', ')} lines)`
        : ''
    }\n` +
    `  runs completed: ${completed.length} of ${RUNS}; all done in ${fmt(wallS, 1)} s\n` +
    `  server-side: ${timedOut} activities timed out, ${attempts} retried attempts started; ${model.requests.length} model requests (${2 * RUNS} when none is asked twice)\n` +
    `  worker peak memory: ${peakMiB ?? '?'} MiB\n` +
    `  scheduled → started (first attempts), median / p99 s: ${Object.entries(waits)
      .map(([type, w]) => `${type} ${fmt(summary(w).median / 1000, 1)} / ${fmt(summary(w).p99 / 1000, 1)}`)
      .join(', ')}\n`,
);
if (lost.length > 0) process.stdout.write(`  first lost result: ${lost[0]!.tool.slice(0, 300)}\n`);
