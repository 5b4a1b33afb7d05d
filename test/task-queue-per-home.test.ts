// A person's runs stay theirs: two TETHER_HOMEs on one Temporal dev server, each with its own `tether worker` and no
// TETHER_TASK_QUEUE, never take each other's runs (the default queue is the home's); a run from a home with no worker
// says which queue it waits on; TETHER_TASK_QUEUE still joins homes on purpose. Through the real CLI.
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { homeQueue } from '../src/temporal/default-queue.js';
import { runCli } from './support/cli.js';
import { startCli, type CliProcess } from './support/cli-process.js';
import { startScriptedModel } from './support/scripted-model.js';
import { workerProcessSuite } from './support/worker-process.js';

const { client, workers, models } = workerProcessSuite();
const processes: CliProcess[] = [];
afterAll(async () => {
  for (const p of processes) await p.kill();
});

const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-homes-')));
const home = (): string => realpathSync(mkdtempSync(join(tmpdir(), 'tether-homes-home-')));

/** The identity of the worker that took the run's first workflow task (`<pid>@<host> model ...`). */
async function takenBy(workflowId: string): Promise<string> {
  const events = (await client().workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  return events.find((e) => e.workflowTaskStartedEventAttributes)?.workflowTaskStartedEventAttributes?.identity ?? '';
}

describe('two TETHER_HOMEs on one dev server', () => {
  it("each home's runs are taken only by its own workers; a home with none says which queue its run waits on", async () => {
    const model = await startScriptedModel([{ content: 'hi' }]);
    models.push(model);
    const base = { TEMPORAL_ADDRESS: inject('temporalAddress'), OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'k' };
    const a = { ...base, TETHER_HOME: home() };
    const b = { ...base, TETHER_HOME: home() };
    expect(homeQueue(a.TETHER_HOME)).not.toBe(homeQueue(b.TETHER_HOME));
    const workerA = await workers.start(a);
    const workerB = await workers.start(b);
    expect(workerA.output()).toContain(`queue ${homeQueue(a.TETHER_HOME)}`);

    // Runs from each home, several, interleaved: each is taken by the worker of its own home.
    for (const [env, worker] of [
      [a, workerA],
      [b, workerB],
      [a, workerA],
      [b, workerB],
    ] as const) {
      const r = await runCli(['run', '--no-worker', '--json', 'say hi'], { cwd, env });
      expect(r.code, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout) as { workflowId: string; answer: string };
      expect(out.answer).toBe('hi');
      expect(await takenBy(out.workflowId)).toMatch(new RegExp(`^${worker.child.pid}@`));
      expect(r.stderr).toContain(`queue ${homeQueue(env.TETHER_HOME)} (this TETHER_HOME's)`);
    }

    // A third home has no worker: its run waits, and says on which queue and how to serve it.
    const c = { ...base, TETHER_HOME: home() };
    const run = startCli(['run', '--no-worker', 'say hi'], { cwd, env: c });
    processes.push(run);
    await run.waitFor(/⏸ waiting for a worker on queue (\S+) \(this TETHER_HOME's\)/, 'the waiting-for-a-worker line');
    expect(run.output()).toContain(`⏸ waiting for a worker on queue ${homeQueue(c.TETHER_HOME)} (this TETHER_HOME's)`);
    const workflowId = /tether · (tether-[0-9a-z-]+) ·/.exec(run.output())![1]!;
    await new Promise((r) => setTimeout(r, 3_000));
    // Nobody else took it.
    expect(await takenBy(workflowId)).toBe('');
    await run.kill('SIGINT');
    await client().workflow.getHandle(workflowId).terminate('test: no worker for this home');
  }, 300_000);

  it('TETHER_TASK_QUEUE names a queue homes share on purpose', async () => {
    const model = await startScriptedModel([{ content: 'shared' }]);
    models.push(model);
    const queue = `shared-${Date.now()}`;
    const base = {
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: 'k',
      TETHER_TASK_QUEUE: queue,
    };
    const worker = await workers.start({ ...base, TETHER_HOME: home() });
    const r = await runCli(['run', '--no-worker', '--json', 'say it'], { cwd, env: { ...base, TETHER_HOME: home() } });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { workflowId: string };
    expect(await takenBy(out.workflowId)).toMatch(new RegExp(`^${worker.child.pid}@`));
    expect(r.stderr).toContain(`queue ${queue} (TETHER_TASK_QUEUE)`);
  }, 300_000);
});
