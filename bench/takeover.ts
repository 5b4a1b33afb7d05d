// Benchmark (not a test): SIGKILL the worker running a run's current model call or command, 10 times per series,
// with and without CPU hogs, (a) with a standby worker already polling and (b) with only a fresh worker started
// after the kill; prints the gap from the kill to the run's next progress (a model request, necessarily from another
// worker) and where the time went. Run: npm run bench:takeover [-- --only standby|restart]
import { spawn, type ChildProcess } from 'node:child_process';
import { randomInt, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { callActivity } from '../src/common/activity-contract.js';
import { freePort, startDevServer } from '../src/temporal/dev-server.js';
import { startScriptedModel, type Step } from '../test/support/scripted-model.js';
import { fmt, machine, summary } from './stats.js';
import { breakdown, describeBreakdown, historyEvents, type Breakdown, type KillRecord } from './takeover-trace.js';

const KILLS = 10;
const cli = fileURLToPath(new URL('../dist/client.js', import.meta.url));
if (!existsSync(cli)) throw new Error('dist/client.js is missing: run npm run build first');

const server = await startDevServer({ port: await freePort(), headless: true });
const connection = await Connection.connect({ address: server.address });
const client = new Client({ connection });

interface Running {
  child: ChildProcess;
  ready: Promise<number>;
}

/** Starts `tether worker`; `ready` resolves with the time it printed its ready line. */
function startWorker(env: Record<string, string>): Running {
  const child = spawn('node', [cli, 'worker'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const ready = new Promise<number>((resolve, reject) => {
    const onData = (c: Buffer): void => {
      out += c.toString();
      if (out.includes('tether worker ·')) resolve(Date.now());
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`worker exited (${code}) before it was ready: ${out}`)));
  });
  ready.catch(() => undefined);
  return { child, ready };
}

const pidOfIdentity = (identity: string): number => Number(/^(\d+)@/.exec(identity)?.[1]);

interface Pending {
  pid: number;
  activity: string;
  attempt: number;
  startedAt: number;
}

/** The run's started activities: the worker running each (from its worker identity), its attempt and start. */
async function pending(workflowId: string): Promise<Pending[]> {
  const desc = await client.workflow.getHandle(workflowId).describe();
  return (desc.raw.pendingActivities ?? [])
    .filter((a) => a.state === 2 /* STARTED */ && pidOfIdentity(a.lastWorkerIdentity ?? '') > 0)
    .map((a) => ({
      pid: pidOfIdentity(a.lastWorkerIdentity ?? ''),
      activity: callActivity(a.activityType?.name ?? '?'),
      attempt: a.attempt ?? 1,
      startedAt: Number(a.lastStartedTime?.seconds ?? 0) * 1000 + Math.floor((a.lastStartedTime?.nanos ?? 0) / 1e6),
    }));
}

/** Each worker's start-up steps in ms (process start to createWorker, tools, environments, connection, workers), from its ready log line. */
function workerStarts(home: string): Map<number, Record<string, number>> {
  const out = new Map<number, Record<string, number>>();
  const file = join(home, 'logs', 'tether.log');
  if (!existsSync(file)) return out;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.includes('"worker ready"')) continue;
    const entry = JSON.parse(line) as { pid: number; startMs?: Record<string, number> };
    if (entry.startMs) out.set(entry.pid, entry.startMs);
  }
  return out;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

type Mode = 'standby' | 'restart';

interface Series {
  label: string;
  gaps: number[];
  kinds: string[];
  steps: Breakdown[];
}

async function series(mode: Mode, hogs: number): Promise<Series> {
  const label = `${mode === 'standby' ? 'standby worker' : 'fresh worker only'}, ${hogs ? `${hogs} CPU hogs` : 'no hog'}`;
  const cwd = mkdtempSync(join(tmpdir(), 'tether-bench-takeover-'));
  const starts = join(cwd, 'starts.txt');
  const requests: { t: number; turn: number; interrupted: boolean }[] = [];
  const turn: Step = (req) => {
    const lastTool = req.messages.filter((m) => m.role === 'tool').at(-1)?.content ?? '';
    requests.push({
      t: Date.now(),
      turn: req.messages.filter((m) => m.role === 'assistant').length,
      interrupted: /"interrupted":true|did not complete/.test(lastTool),
    });
    return {
      delayMs: randomInt(300, 1_500),
      toolCalls: [{ name: 'terminal', arguments: { command: `date +%s%3N >> ${starts}; sleep 1.$((RANDOM % 9))` } }],
    };
  };
  const model = await startScriptedModel(Array.from({ length: 500 }, () => turn));
  const taskQueue = `bench-takeover-${randomUUID()}`;
  const env = {
    TEMPORAL_ADDRESS: server.address,
    TETHER_TASK_QUEUE: taskQueue,
    OPENAI_BASE_URL: model.url,
    OPENAI_API_KEY: 'bench',
    TETHER_HOME: mkdtempSync(join(tmpdir(), 'tether-bench-home-')),
  };
  const workers = Array.from({ length: mode === 'standby' ? 2 : 1 }, () => startWorker(env));
  await Promise.all(workers.map((w) => w.ready));
  const hogProcs = Array.from({ length: hogs }, () => spawn('node', ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  const workflowId = `bench-takeover-${randomUUID()}`;
  const handle = await client.workflow.start('agentWorkflow', {
    taskQueue,
    workflowId,
    args: [{ task: 'keep going', model: 'scripted', cwd, limits: { maxTurns: 500 } }],
  });
  const gaps: number[] = [];
  const kinds: string[] = [];
  const records: KillRecord[] = [];
  for (let k = 0; k < KILLS; k += 1) {
    await sleep(randomInt(1_000, 4_000));
    let busy = (await pending(workflowId))[0];
    while (!busy) {
      await sleep(50);
      busy = (await pending(workflowId))[0];
    }
    const victim = workers.find((w) => w.child.pid === busy!.pid);
    if (!victim) throw new Error(`no worker with pid ${busy.pid}`);
    const killedAt = Date.now();
    victim.child.kill('SIGKILL');
    workers.splice(workers.indexOf(victim), 1);
    // A replacement starts at once, like a supervisor would. With a standby, the standby is expected to take over.
    const replacement = startWorker(env);
    workers.push(replacement);
    const record: KillRecord = {
      killedAt,
      activity: busy.activity,
      progressAt: 0,
      pids: { victim: busy.pid, replacement: replacement.child.pid },
    };
    void replacement.ready.then((t) => (record.replacementReadyAt = t));
    // Only model requests count: a command the dead worker had just spawned may still start for up to a second
    // (until its guard sees the worker gone), which is not progress.
    let next: number | undefined;
    while (next === undefined) {
      if (record.retryStartedAt === undefined && busy.activity === 'callModel') {
        const retry = (await pending(workflowId)).find((p) => p.activity === 'callModel' && p.pid !== busy!.pid);
        if (retry && retry.startedAt > killedAt) record.retryStartedAt = retry.startedAt;
      }
      await sleep(50);
      next = requests.find((r) => r.t > killedAt)?.t;
    }
    record.progressAt = next;
    records.push(record);
    // Did the kill interrupt the call, or had it just finished? A model call asked again, or a tool reported interrupted.
    const before = requests.filter((r) => r.t <= killedAt).at(-1);
    const after = requests.find((r) => r.t > killedAt)!;
    const hit = busy.activity === 'callModel' ? after.turn === before?.turn : after.interrupted;
    gaps.push((next - killedAt) / 1000);
    kinds.push(hit ? busy.activity : 'finished');
    process.stdout.write(
      `  ${label} kill ${k + 1}: ${hit ? `interrupted ${busy.activity}` : `${busy.activity} had just finished`}, next progress after ${fmt((next - killedAt) / 1000, 1)} s\n`,
    );
    await replacement.ready;
  }
  const events = await historyEvents(client, workflowId);
  await handle.terminate('benchmark done');
  for (const h of hogProcs) h.kill('SIGKILL');
  for (const w of workers) w.child.kill('SIGKILL');
  await model.close();
  const startSteps = workerStarts(env.TETHER_HOME);
  const steps = records.map((r, i) => {
    const b = breakdown(r, events);
    const st = r.pids.replacement ? startSteps.get(r.pids.replacement) : undefined;
    const start = st
      ? ` · replacement start ${Object.entries(st)
          .map(([k, v]) => `${k} ${fmt(v / 1000, 1)}`)
          .join(', ')} s`
      : '';
    process.stdout.write(`    kill ${i + 1} (${r.activity}): ${describeBreakdown(b)}${start}\n`);
    return b;
  });
  return { label, gaps, kinds, steps };
}

const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined;
const modes: Mode[] = only === 'standby' || only === 'restart' ? [only] : ['standby', 'restart'];
const results: Series[] = [];
for (const mode of modes) for (const hogs of [0, cpus().length]) results.push(await series(mode, hogs));
await connection.close();
await server.stop();
process.stdout.write(`takeover benchmark · ${machine()} · the busy worker SIGKILLed ${KILLS} times per series\n`);
const med = (xs: (number | undefined)[]): string => {
  const v = xs.filter((x): x is number => x !== undefined);
  return v.length ? `${fmt(summary(v).median, 1)} s` : '–';
};
for (const r of results) {
  const s = summary(r.gaps);
  const count = (k: string): number => r.kinds.filter((x) => x === k).length;
  const hit = r.gaps.filter((_, i) => r.kinds[i] !== 'finished');
  const h = summary(hit);
  process.stdout.write(
    `${r.label}: kill → next progress median ${fmt(s.median, 1)} s, worst ${fmt(Math.max(...r.gaps), 1)} s over all ${r.gaps.length} kills; ` +
      `over the ${hit.length} that interrupted a call (${count('callModel')} model, ${count('runTool')} tool): median ${fmt(h.median, 1)} s, worst ${fmt(Math.max(...hit), 1)} s\n` +
      `  medians after the kill: call timed out ${med(r.steps.map((b) => b.timedOut))}, retry started ${med(r.steps.map((b) => b.retryStarted))}, ` +
      `workflow task started ${med(r.steps.map((b) => b.wftStarted))}, completed ${med(r.steps.map((b) => b.wftCompleted))}, ` +
      `model call scheduled ${med(r.steps.map((b) => b.modelScheduled))}, replacement ready ${med(r.steps.map((b) => b.replacementReady))}; ` +
      `sticky-queue timeouts ${r.steps.reduce((n, b) => n + b.stickyTimeouts, 0)}, ` +
      `workflow task timeouts ${r.steps.reduce((n, b) => n + b.wftTimeouts, 0)}, failures ${r.steps.reduce((n, b) => n + b.wftFailures, 0)}\n`,
  );
}
