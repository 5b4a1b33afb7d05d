// Pending approvals survive crashes: a SIGKILLed worker, a decision sent while no worker runs, and a restart of the
// Temporal server itself (same SQLite file). Workers are real `tether worker` processes.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { expect, inject, it } from 'vitest';
import { freePort, startDevServer } from '../src/temporal/dev-server.js';
import type { AgentResult, AgentState } from '../src/common/types.js';
import { until } from './support/cli.js';
import { workerProcessSuite, type WorkerProcess } from './support/worker-process.js';
import { approvalScenario, type ApprovalScenario } from './support/approval-scenario.js';

const { client, workers, models } = workerProcessSuite();

const lines = (file: string): string[] =>
  existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];

const setUp = (address: string): Promise<ApprovalScenario> => approvalScenario(address, 'approval-crash', models);

const worker = (env: Record<string, string>): Promise<WorkerProcess> => workers.start(env);

async function pending(handle: WorkflowHandle): Promise<AgentState['pendingApprovals'][number]> {
  let s: AgentState | undefined;
  await until(
    'a pending approval',
    async () => ((s = await handle.query<AgentState>('state')).pendingApprovals.length ?? 0) > 0,
    60_000,
  );
  return s!.pendingApprovals[0]!;
}

it('SIGKILL of the worker while an approval waits: a new worker takes the decision and the command runs once', async () => {
  const { cwd, marker, env, taskQueue } = await setUp(inject('temporalAddress'));
  const first = await worker(env);
  const handle = await client().workflow.start('agentWorkflow', {
    taskQueue,
    workflowId: `apc-${randomUUID()}`,
    args: [{ task: 't', model: 'scripted', cwd }],
  });
  const p = await pending(handle);
  await first.kill('SIGKILL');

  await worker(env);
  // The state (and the pending approval) is rebuilt from history on the new worker.
  expect((await pending(handle)).approvalId).toBe(p.approvalId);
  await handle.executeUpdate('decideApproval', { args: [{ approvalId: p.approvalId, choice: 'once' }] });
  const result = (await handle.result()) as AgentResult;
  expect(result).toMatchObject({ status: 'completed', answer: 'finished after the approval' });
  expect(lines(marker)).toEqual(['ran']);
}, 120_000);

it('a decision sent while no worker runs is applied when one starts', async () => {
  const { cwd, marker, env, taskQueue } = await setUp(inject('temporalAddress'));
  const first = await worker(env);
  const handle = await client().workflow.start('agentWorkflow', {
    taskQueue,
    workflowId: `apc-${randomUUID()}`,
    args: [{ task: 't', model: 'scripted', cwd }],
  });
  const p = await pending(handle);
  await first.kill('SIGKILL');

  await handle.signal('approval', {
    approvalId: p.approvalId,
    choice: 'once',
    callId: p.callId,
    argsDigest: p.argsDigest,
  });
  // The decision is in history (signal() returns once the server recorded it), and no workflow task has run since.
  const events = (await handle.fetchHistory()).events ?? [];
  const signalled = events.findIndex((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'approval');
  expect(signalled).toBeGreaterThan(0);
  expect(
    events
      .slice(signalled)
      .filter((e) => e.workflowTaskCompletedEventAttributes || e.activityTaskScheduledEventAttributes),
  ).toEqual([]);
  expect(lines(marker)).toEqual([]); // nothing runs without a worker

  await worker(env);
  expect(((await handle.result()) as AgentResult).status).toBe('completed');
  expect(lines(marker)).toEqual(['ran']);
}, 120_000);

it('the Temporal server restarts (same SQLite file) while an approval waits, and the decision still works', async () => {
  const dbFile = join(mkdtempSync(join(tmpdir(), 'tether-approval-restart-')), 'dev.sqlite');
  const port = await freePort();
  let server = await startDevServer({ port, dbFile, headless: true });
  try {
    const { cwd, marker, env, taskQueue } = await setUp(server.address);
    const first = await worker(env);
    let conn = await Connection.connect({ address: server.address });
    const workflowId = `apc-${randomUUID()}`;
    const p = await pending(
      await new Client({ connection: conn }).workflow.start('agentWorkflow', {
        taskQueue,
        workflowId,
        args: [{ task: 't', model: 'scripted', cwd }],
      }),
    );
    await conn.close();
    await first.kill('SIGKILL');
    await server.stop();

    server = await startDevServer({ port, dbFile, headless: true });
    conn = await Connection.connect({ address: server.address });
    const handle = new Client({ connection: conn }).workflow.getHandle(workflowId);
    await worker(env);
    expect((await pending(handle)).approvalId).toBe(p.approvalId);
    await handle.executeUpdate('decideApproval', { args: [{ approvalId: p.approvalId, choice: 'once' }] });
    expect(((await handle.result()) as AgentResult).status).toBe('completed');
    expect(lines(marker)).toEqual(['ran']);
    await conn.close();
  } finally {
    await workers.killAll();
    await server.stop();
  }
}, 180_000);
