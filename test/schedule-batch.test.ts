// Scheduled and batch runs through the compiled CLI, on the real dev server with a real worker: a schedule's run
// options (the approval mode, the directory) shown by describe; a batch run, resumed, listed, and cancelled as a whole.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { cliPath, runCli, until } from './support/cli.js';
import { startScriptedModel, type ScriptedModel } from './support/scripted-model.js';
import { startWorkerProcess, type WorkerProcess } from './support/worker-process.js';

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'tether-batch-')));
let model: ScriptedModel;
let env: Record<string, string>;
let connection: Connection;
let client: Client;
const workers: WorkerProcess[] = [];

const tether = (args: string[]) => runCli(args, { cwd: dir, env });

async function executions(prefix: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const w of client.workflow.list({ query: `WorkflowType = 'agentWorkflow'` })) {
    if (w.workflowId.startsWith(prefix)) ids.push(w.workflowId);
  }
  return ids;
}

beforeAll(async () => {
  model = await startScriptedModel([
    // A task that says "hold" asks for a command that waits for a person (the batch cancel test's runs).
    (req) =>
      req.messages.some((m) => m.role === 'user' && m.content?.includes('hold'))
        ? { toolCalls: [{ name: 'terminal', arguments: { command: 'git push --force origin main' } }] }
        : { delayMs: 150, toolCalls: [{ name: 'search_files', arguments: { pattern: 'x', target: 'files' } }] },
    { delayMs: 150, content: 'done' },
  ]);
  env = {
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TETHER_TASK_QUEUE: `batch-${randomUUID()}`,
    OPENAI_BASE_URL: model.url,
    OPENAI_API_KEY: 'test-key',
    TETHER_HOME: mkdtempSync(join(tmpdir(), 'tether-batch-home-')),
  };
  connection = await Connection.connect({ address: inject('temporalAddress') });
  client = new Client({ connection });
});
afterAll(async () => {
  for (const w of workers) await w.kill('SIGTERM');
  await connection.close();
  await model.close();
});

describe('tether schedule', () => {
  it('starts runs on an interval and on trigger; pause stops them', async () => {
    workers.push(await startWorkerProcess(env));
    const id = `sched-${randomUUID().slice(0, 8)}`;
    const created = await tether([
      'schedule',
      'create',
      '--every',
      '10s',
      '--id',
      id,
      '--approval-mode',
      'off',
      'scheduled task',
    ]);
    expect(created.code).toBe(0);
    expect(created.stdout.trim()).toBe(id);
    const describe = async () =>
      JSON.parse((await tether(['schedule', 'describe', id, '--json'])).stdout) as {
        runs: number;
        paused: boolean;
        task: string;
        overlap: string;
        nextRuns: string[];
        cwd: string;
        approvalMode: string;
      };
    // Its runs' options are said: where they work and how they are approved.
    expect(await describe()).toMatchObject({ cwd: dir, approvalMode: 'off' });
    expect((await tether(['schedule', 'describe', id])).stdout).toContain(`cwd: ${dir}`);
    await until('two scheduled runs', async () => (await describe()).runs >= 2);
    expect(await tether(['schedule', 'trigger', id])).toMatchObject({ code: 0 });
    const planned = (await describe()).nextRuns;
    expect(planned).toHaveLength(3);
    expect((await tether(['schedule', 'pause', id, '--note', 'test'])).code).toBe(0);
    const paused = await describe();
    expect(paused).toMatchObject({ paused: true, task: 'scheduled task', overlap: 'SKIP' });
    // The firings the server had planned go by (the last one leaves the scheduler an interval to act on the others);
    // had the pause not held, at least one of them would have started a run.
    const lastPlanned = Date.parse(planned[2]!);
    await until('the planned firings to go by', () => Date.now() > lastPlanned, 60_000);
    expect((await describe()).runs).toBe(paused.runs);
    // Scheduled runs are ordinary runs: they finish and `tether list` shows them.
    await until('the scheduled runs to finish', async () => {
      const list = JSON.parse((await tether(['list', '--json', '--limit', '200'])).stdout) as {
        workflowId: string;
        status: string;
      }[];
      const mine = list.filter((r) => r.workflowId.startsWith(`${id}-`));
      return mine.length >= paused.runs && mine.every((r) => r.status === 'completed');
    });
    expect((await tether(['schedule', 'delete', id])).code).toBe(0);
    expect((await tether(['schedule', 'describe', id])).code).toBe(1);
  }, 240_000); // a dozen CLI commands and three 10 s firings: minutes on a loaded machine

  it('refuses a bad cron expression and a bad overlap policy with a clear message', async () => {
    const cron = await tether(['schedule', 'create', '--cron', 'every day', 'x']);
    expect(cron.code).toBe(2);
    expect(cron.stderr).toContain('the schedule was refused');
    const overlap = await tether(['schedule', 'create', '--every', '1m', '--overlap', 'sometimes', 'x']);
    expect(overlap.stderr).toContain('--overlap must be one of');
  });
});

describe('tether batch', () => {
  beforeAll(async () => {
    // The resume test runs with --no-worker so that killing the command leaves its runs to this worker.
    if (workers.length === 0) workers.push(await startWorkerProcess(env));
  });
  const tasks = (n: number, extra: string[] = []) =>
    [...Array.from({ length: n }, (_, i) => JSON.stringify(`task number ${i + 1}`)), ...extra].join('\n');

  it('runs 20 tasks at concurrency 5, writes 20 results, says which lines it skipped, and exits 0', async () => {
    const file = join(dir, 'twenty.jsonl');
    writeFileSync(file, tasks(20, ['{"task": "broken"', '{"task": "x", "toolsets": "nope"}']));
    const out = join(dir, 'twenty.results.jsonl');
    const r = await tether(['batch', file, '--concurrency', '5', '--out', out]);
    expect(r.stderr).toContain('twenty.jsonl:21: skipped: not valid JSON');
    expect(r.stderr).toContain("twenty.jsonl:22: skipped: toolsets: unknown toolset 'nope'");
    // Every task it ran completed: 0, and the skipped lines are said, not counted as failures.
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/0 not completed .*; 2 lines of the file skipped as shown above/);
    // Without a terminal, progress is a line every few seconds, not one per update.
    const progress = r.stderr.split('\n').filter((l) => l.includes(' done · '));
    expect(progress.length).toBeGreaterThanOrEqual(1);
    expect(progress.length).toBeLessThan(10);
    const results = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { line: number; status: string; answer: string; toolCalls: number });
    expect(results).toHaveLength(20);
    expect(new Set(results.map((x) => x.line)).size).toBe(20);
    expect(results.every((x) => x.status === 'completed' && x.answer === 'done' && x.toolCalls === 1)).toBe(true);
    expect(r.stderr).toMatch(/20\/20 done/);
  }, 240_000); // twenty runs through the CLI: minutes on a loaded machine

  it('resumes after being killed halfway without running finished tasks again', async () => {
    const file = join(dir, 'resume.jsonl');
    writeFileSync(file, tasks(20));
    const out = join(dir, 'resume.results.jsonl');
    const first = spawn('node', [cliPath, 'batch', file, '--concurrency', '2', '--out', out, '--no-worker'], {
      cwd: dir,
      env: { ...process.env, ...env },
    });
    await until('six results', () => existsSync(out) && readFileSync(out, 'utf8').trim().split('\n').length >= 6);
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    const before = readFileSync(out, 'utf8').trim().split('\n').length;
    expect(before).toBeLessThan(20);

    const again = await tether(['batch', file, '--concurrency', '5', '--out', out, '--no-worker']);
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(new RegExp(`${before} earlier`));
    const lines = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { line: number; workflowId: string; status: string });
    expect(lines).toHaveLength(20);
    expect(new Set(lines.map((l) => l.line)).size).toBe(20);
    expect(lines.every((l) => l.status === 'completed')).toBe(true);
    // Every task's workflow ran exactly once.
    const prefix = lines[0]!.workflowId.replace(/-L\d+-.*$/, '');
    await until('visibility to catch up', async () => (await executions(prefix)).length >= 20);
    const ids = await executions(prefix);
    expect(ids).toHaveLength(20);
    expect(new Set(ids).size).toBe(20);
  }, 240_000);

  it('lists batches, and cancels one as a whole: its waiting runs end cancelled and no more of its tasks start', async () => {
    const file = join(dir, 'hold.jsonl');
    writeFileSync(file, tasks(3).replace(/task number/g, 'hold task number'));
    const batch = spawn('node', [cliPath, 'batch', file, '--concurrency', '2', '--no-worker'], {
      cwd: dir,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    batch.stderr.on('data', (c: Buffer) => (output += c.toString()));
    batch.stdout.on('data', (c: Buffer) => (output += c.toString()));
    const exited = new Promise<number | null>((r) => batch.once('exit', (code) => r(code)));
    const batchId = /batch ([0-9a-f]{10}) /.exec(await waitFor(() => output, /batch [0-9a-f]{10} /))![1]!;
    type Row = { batchId: string; runs: number; statuses: Record<string, number> };
    let row: Row | undefined;
    await until('two runs of the batch waiting for approval', async () => {
      const rows = JSON.parse((await tether(['batch', 'list', '--json'])).stdout) as Row[];
      row = rows.find((b) => b.batchId === batchId);
      return row?.statuses['waiting-approval'] === 2;
    });
    expect(row).toMatchObject({ runs: 2 });
    expect((await tether(['batch', 'list'])).stdout).toMatch(new RegExp(`${batchId}  2 runs: 2 waiting-approval`));
    const cancel = await tether(['batch', 'cancel', batchId]);
    expect(cancel.code).toBe(0);
    expect(cancel.stdout).toMatch(new RegExp(`^batch ${batchId}: 2 running runs cancelled`));
    // The batch started no third task: it says so and exits as interrupted.
    expect(await exited).toBe(130);
    expect(output).toContain('A run of this batch was cancelled, so no more tasks were started');
    expect(output).toMatch(/3 tasks: 2 finished now, 0 earlier, 2 not completed .*, 1 not started/);
    expect((await tether(['batch', 'cancel', 'nothex'])).code).toBe(2);
  }, 240_000);
});

/** Polls `text()` until `pattern` matches it (the output of a process still running). */
async function waitFor(text: () => string, pattern: RegExp): Promise<string> {
  await until(`output matching ${String(pattern)}`, () => pattern.test(text()));
  return text();
}
