// Visibility on the real dev server: a run's status, pending approval ids and memo appear and change as it moves
// (waiting-approval → running → completed); `tether approvals` and `tether list` read them with no worker running;
// the gateway's signed GET /approvals too; filters (status, batch, schedule) and paging.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunMemo } from '../src/common/search-attributes.js';
import { listRunPage, type RunRow } from '../src/visibility/list-runs.js';
import { harness, type Harness } from './support/agent-harness.js';
import { cliPath, runCli, until } from './support/cli.js';
import { signListing } from '../src/cli/gateway-listing.js';
import { recordHistory } from './support/history.js';
import { startScriptedModel, type ScriptedModel } from './support/scripted-model.js';

let h: Harness;
const closers: (() => Promise<unknown>)[] = [];
beforeAll(async () => {
  h = await harness();
});
afterAll(async () => {
  for (const c of closers.reverse()) await c();
  await h.close();
});

const project = (): string => realpathSync(mkdtempSync(join(tmpdir(), 'tether-visibility-')));
const SECRET = 'sk-proj-visibilitytestsecret0123456789';

/** The run as visibility shows it (eventually consistent: callers wait for the state they expect). */
async function visible(workflowId: string): Promise<RunRow | undefined> {
  const page = await listRunPage(h.client, { query: `WorkflowId = '${workflowId}'`, pageSize: 1 });
  return page.runs[0];
}

async function waitFor(workflowId: string, status: string): Promise<RunRow> {
  let row: RunRow | undefined;
  await until(`${workflowId} to show ${status}`, async () => (row = await visible(workflowId))?.status === status);
  return row!;
}

function cli(args: string[], env: Record<string, string>): ReturnType<typeof runCli> {
  return runCli(args, {
    cwd: tmpdir(),
    env: { TEMPORAL_ADDRESS: h.address, TETHER_TASK_QUEUE: h.taskQueue, TETHER_HOME: project(), ...env },
  });
}

/** A dangerous command (kubectl delete asks; kubectl is not installed) that then waits for a file named `go`. */
const waitingCommand = `OPENAI_API_KEY=${SECRET} kubectl delete pod web 2>/dev/null; while [ ! -f go ]; do sleep 0.2; done; echo done`;

describe('visibility of a run', () => {
  let model: ScriptedModel;
  beforeAll(async () => {
    model = await startScriptedModel([
      { toolCalls: [{ name: 'terminal', arguments: { command: waitingCommand } }] },
      { content: 'finished' },
    ]);
    closers.push(() => model.close());
  });

  it('shows status, approval ids and a redacted memo that change as the run moves; lists with no worker', async () => {
    const cwd = project();
    const id = `vis-${randomUUID()}`;
    const handle = await h.withWorker(model.url, async () => {
      const started = await h.client.workflow.start('agentWorkflow', {
        taskQueue: h.taskQueue,
        workflowId: id,
        args: [{ task: `delete the web pod (key ${SECRET})`, model: 'scripted', cwd }],
      });
      await waitFor(id, 'waiting-approval');
      return started;
    });
    // Every worker of this run's queue is stopped now: what follows reads visibility only.
    const row = await waitFor(id, 'waiting-approval');
    const memo = row.memo as RunMemo;
    expect(row).toMatchObject({ model: 'scripted', temporalStatus: 'RUNNING' });
    expect(row.pendingApprovals).toHaveLength(1);
    const [approval] = memo.approvals;
    expect(approval).toMatchObject({
      approvalId: row.pendingApprovals[0],
      tool: 'terminal',
      callId: 'call_1_1',
      redacted: true,
      findings: [expect.objectContaining({ rule: 'kubectl-delete' })],
    });
    expect(JSON.stringify(row)).not.toContain(SECRET);
    expect(approval!.command).toContain('kubectl delete pod web');

    const approvals = await cli(['approvals', '--json'], {});
    expect(approvals.code).toBe(0);
    const listed = (JSON.parse(approvals.stdout) as { workflowId: string; approvalId: string }[]).filter(
      (a) => a.workflowId === id,
    );
    expect(listed).toEqual([expect.objectContaining({ approvalId: approval!.approvalId, redacted: true })]);
    expect(approvals.stderr).not.toContain(id);
    const text = await cli(['approvals'], {});
    expect(text.stdout).toContain(`${id} ${approval!.approvalId} · terminal`);
    expect(text.stdout).toContain('OPENAI_API_KEY=⟨redacted: 38 characters⟩ kubectl delete pod web');
    const waiting = await cli(['list', '--status', 'waiting-approval', '--json', '--limit', '1000'], {});
    expect(waiting.code).toBe(0);
    expect((JSON.parse(waiting.stdout) as RunRow[]).map((r) => r.workflowId)).toContain(id);

    // The gateway lists the same, to a caller that signs with approvals.secret.
    const secret = 'a-visibility-test-secret';
    const home = project();
    writeFileSync(join(home, 'config.yaml'), `approvals:\n  secret: ${secret}\n`);
    const gateway = spawn('node', [cliPath, 'serve', '--port', '0'], {
      env: { ...process.env, TEMPORAL_ADDRESS: h.address, TETHER_HOME: home },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    closers.push(async () => gateway.kill('SIGKILL'));
    let out = '';
    gateway.stdout.on('data', (c: Buffer) => (out += c.toString()));
    gateway.stderr.on('data', (c: Buffer) => (out += c.toString()));
    await until('the gateway', () => /listening on (http:\/\/\S+)/.test(out));
    const base = /listening on (http:\/\/\S+)/.exec(out)![1]!;
    const timestamp = String(Date.now());
    const signed = await fetch(`${base}/approvals`, {
      headers: { 'x-tether-timestamp': timestamp, 'x-tether-signature': signListing(secret, timestamp) },
    });
    expect(signed.status).toBe(200);
    const viaGateway = (await signed.json()) as { approvals: { workflowId: string; approvalId: string }[] };
    expect(viaGateway.approvals.filter((a) => a.workflowId === id).map((a) => a.approvalId)).toEqual([
      approval!.approvalId,
    ]);
    const forged = await fetch(`${base}/approvals`, {
      headers: { 'x-tether-timestamp': timestamp, 'x-tether-signature': signListing('not-the-secret', timestamp) },
    });
    expect(forged.status).toBe(401);
    const old = String(Date.now() - 3_600_000);
    const stale = await fetch(`${base}/approvals`, {
      headers: { 'x-tether-timestamp': old, 'x-tether-signature': signListing(secret, old) },
    });
    expect(stale.status).toBe(401);
    gateway.kill('SIGTERM');

    // Decided while no worker runs (a signal); the run moves on once a worker is back.
    expect((await cli(['approve', id, approval!.approvalId], {})).code).toBe(0);
    await h.withWorker(model.url, async () => {
      const running = await waitFor(id, 'running');
      expect(running.pendingApprovals).toEqual([]);
      expect(running.memo?.approvals).toEqual([]);
      writeFileSync(join(cwd, 'go'), '');
      await handle.result();
    });
    expect(existsSync(join(cwd, 'go'))).toBe(true);
    const done = await waitFor(id, 'completed');
    expect(done.memo?.status).toBe('completed');
    recordHistory(h.address, id, 'visibility');
  }, 240_000);
});

describe('tether list filters and pages', () => {
  it('by batch and status, a page at a time; by schedule', async () => {
    const model = await startScriptedModel([
      { toolCalls: [{ name: 'terminal', arguments: { command: 'kubectl delete pod web 2>/dev/null' } }] },
      { content: 'finished' },
    ]);
    closers.push(() => model.close());
    const batchId = `b-${randomUUID().slice(0, 8)}`;
    const scheduleId = `vis-sched-${randomUUID().slice(0, 8)}`;
    const ids = [1, 2, 3].map((i) => `vis-batch-${batchId}-${i}`);
    const cwd = project();
    await h.withWorker(model.url, async () => {
      for (const workflowId of ids)
        await h.client.workflow.start('agentWorkflow', {
          taskQueue: h.taskQueue,
          workflowId,
          args: [{ task: 'batch task', model: 'scripted', cwd, batchId }],
        });
      const schedule = await h.client.schedule.create({
        scheduleId,
        spec: { intervals: [{ every: '1 day' }] },
        action: {
          type: 'startWorkflow',
          workflowType: 'agentWorkflow',
          taskQueue: h.taskQueue,
          workflowId: scheduleId,
          args: [{ task: 'scheduled task', model: 'scripted', cwd }],
        },
        state: { triggerImmediately: true },
      });
      closers.push(() => schedule.delete());
      await until('the batch and the scheduled run to wait for approval', async () => {
        const page = await listRunPage(h.client, { status: 'waiting-approval', pageSize: 1000 });
        const mine = page.runs.filter((r) => ids.includes(r.workflowId) || r.schedule === scheduleId);
        return mine.length === 4;
      });
    });
    const first = await cli(['list', '--batch', batchId, '--limit', '2', '--json'], {});
    expect(first.code).toBe(0);
    const firstRows = JSON.parse(first.stdout) as RunRow[];
    expect(firstRows).toHaveLength(2);
    const token = /--page-token (\S+)/.exec(first.stderr)?.[1];
    expect(token).toBeDefined();
    const second = await cli(['list', '--batch', batchId, '--limit', '2', '--page-token', token!, '--json'], {});
    const secondRows = JSON.parse(second.stdout) as RunRow[];
    expect(second.stderr).not.toContain('--page-token');
    expect([...firstRows, ...secondRows].map((r) => r.workflowId).sort()).toEqual([...ids].sort());
    expect([...firstRows, ...secondRows].every((r) => r.batch === batchId && r.status === 'waiting-approval')).toBe(
      true,
    );
    const none = await cli(['list', '--batch', batchId, '--status', 'completed', '--json'], {});
    expect(JSON.parse(none.stdout)).toEqual([]);
    const scheduled = JSON.parse((await cli(['list', '--schedule', scheduleId, '--json'], {})).stdout) as RunRow[];
    expect(scheduled).toEqual([expect.objectContaining({ schedule: scheduleId, status: 'waiting-approval' })]);
    expect(scheduled[0]!.workflowId.startsWith(scheduleId)).toBe(true);
    const bad = await cli(['list', '--page-token', 'bm90LWEtdG9rZW4', '--status', 'open'], {});
    expect(bad.code).not.toBe(0);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    for (const id of [...ids, scheduled[0]!.workflowId]) await h.client.workflow.getHandle(id).terminate('test done');
  }, 240_000);
});
