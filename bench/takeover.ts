// Benchmark (not a test): SIGKILL the worker running a run's current model call or command, 10 times, with a
// standby worker running, with and without CPU hogs; prints the gap from the kill to the run's next progress (a
// model request, necessarily from another worker). Run: npm run bench:takeover
import { spawn, type ChildProcess } from 'node:child_process';
import { randomInt, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { freePort, startDevServer } from '../src/temporal/dev-server.js';
import { startScriptedModel, type Step } from '../test/support/scripted-model.js';
import { fmt, machine, summary } from './stats.js';

const KILLS = 10;
const cli = fileURLToPath(new URL('../dist/client.js', import.meta.url));
if (!existsSync(cli)) throw new Error('dist/client.js is missing: run npm run build first');

const server = await startDevServer({ port: await freePort(), headless: true });
const connection = await Connection.connect({ address: server.address });
const client = new Client({ connection });

interface Running {
  child: ChildProcess;
  ready: Promise<void>;
}

function startWorker(env: Record<string, string>): Running {
  const child = spawn('node', [cli, 'worker'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const ready = new Promise<void>((resolve, reject) => {
    const onData = (c: Buffer): void => {
      out += c.toString();
      if (out.includes('tether worker ·')) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`worker exited (${code}) before it was ready: ${out}`)));
  });
  ready.catch(() => undefined);
  return { child, ready };
}

/** The pid of the worker running the run's current activity (from the pending activity's worker identity). */
async function busyWorker(workflowId: string): Promise<{ pid: number; activity: string } | undefined> {
  const desc = await client.workflow.getHandle(workflowId).describe();
  for (const a of desc.raw.pendingActivities ?? []) {
    const pid = Number(/^(\d+)@/.exec(a.lastWorkerIdentity ?? '')?.[1]);
    if (a.state === 2 /* STARTED */ && pid > 0) return { pid, activity: a.activityType?.name ?? '?' };
  }
  return undefined;
}

async function series(label: string, hogs: number): Promise<{ label: string; gaps: number[]; kinds: string[] }> {
  const cwd = mkdtempSync(join(tmpdir(), 'tether-bench-takeover-'));
  const starts = join(cwd, 'starts.txt');
  const progress: number[] = [];
  const requests: { t: number; turn: number; interrupted: boolean }[] = [];
  const turn: Step = (req) => {
    progress.push(Date.now());
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
  const workers = [startWorker(env), startWorker(env)];
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
  for (let k = 0; k < KILLS; k += 1) {
    await new Promise((r) => setTimeout(r, randomInt(1_000, 4_000)));
    let busy = await busyWorker(workflowId);
    while (!busy) {
      await new Promise((r) => setTimeout(r, 50));
      busy = await busyWorker(workflowId);
    }
    const victim = workers.find((w) => w.child.pid === busy!.pid);
    if (!victim) throw new Error(`no worker with pid ${busy.pid}`);
    const killedAt = Date.now();
    victim.child.kill('SIGKILL');
    workers.splice(workers.indexOf(victim), 1);
    // A replacement starts at once, like a supervisor would; the standby worker is the one expected to take over.
    const replacement = startWorker(env);
    workers.push(replacement);
    let next: number | undefined;
    while (next === undefined) {
      await new Promise((r) => setTimeout(r, 50));
      // Only model requests count: a command the dead worker had just spawned may still start for up to a second
      // (until its guard sees the worker gone), which is not progress.
      next = progress.find((t) => t > killedAt);
    }
    // Did the kill interrupt the call, or had it just finished? A model call asked again, or a tool reported interrupted.
    while (!requests.some((r) => r.t > killedAt)) await new Promise((r) => setTimeout(r, 50));
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
  await handle.terminate('benchmark done');
  for (const h of hogProcs) h.kill('SIGKILL');
  for (const w of workers) w.child.kill('SIGKILL');
  await model.close();
  return { label, gaps, kinds };
}

const results = [await series('no hog', 0), await series(`${cpus().length} CPU hogs`, cpus().length)];
await connection.close();
await server.stop();
process.stdout.write(
  `takeover benchmark · ${machine()} · two workers, the busy one SIGKILLed ${KILLS} times per series\n`,
);
for (const r of results) {
  const s = summary(r.gaps);
  const count = (k: string): number => r.kinds.filter((x) => x === k).length;
  const hit = r.gaps.filter((_, i) => r.kinds[i] !== 'finished');
  const h = summary(hit);
  process.stdout.write(
    `${r.label}: kill → next progress median ${fmt(s.median, 1)} s, worst ${fmt(Math.max(...r.gaps), 1)} s over all ${r.gaps.length} kills; ` +
      `over the ${hit.length} that interrupted a call (${count('callModel')} model, ${count('runTool')} tool): median ${fmt(h.median, 1)} s, worst ${fmt(Math.max(...hit), 1)} s\n`,
  );
}
