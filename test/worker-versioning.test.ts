// Worker Versioning on the real dev server: a run waiting for an approval while its worker's version is replaced by a
// new one. AUTO_UPGRADE (tether's default) finishes on the new version; PINNED waits for its own version's worker.
import { existsSync, readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { expect, inject, it } from 'vitest';
import type { AgentResult, AgentState } from '../src/common/types.js';
import { runCli, until } from './support/cli.js';
import { workerProcessSuite, type WorkerProcess } from './support/worker-process.js';
import { approvalScenario, type ApprovalScenario } from './support/approval-scenario.js';

const suite = workerProcessSuite();

const setUp = (name: string): Promise<ApprovalScenario> =>
  approvalScenario(inject('temporalAddress'), name, suite.models);

/** A versioned `tether worker`; with `current`, it made its version current (it says so once the server accepted it). */
async function versionedWorker(env: Record<string, string>, args: string[], current = true): Promise<WorkerProcess> {
  const w = await suite.workers.start(env, current ? ['--make-current', ...args] : args);
  if (current)
    await until(`version current (${w.output()})`, () => /is now the current version/.test(w.output()), 90_000);
  return w;
}

async function pending(handle: WorkflowHandle): Promise<AgentState['pendingApprovals'][number]> {
  let s: AgentState | undefined;
  await until(
    'a pending approval',
    async () => ((s = await handle.query<AgentState>('state')).pendingApprovals.length ?? 0) > 0,
  );
  return s!.pendingApprovals[0]!;
}

/** The build id each completed workflow task of the run recorded, in order. */
async function taskBuildIds(handle: WorkflowHandle): Promise<string[]> {
  const history = await handle.fetchHistory();
  return (history.events ?? [])
    .map((e) => e.workflowTaskCompletedEventAttributes)
    .filter((a) => a !== null && a !== undefined)
    .map((a) => a.deploymentVersion?.buildId ?? a.workerVersion?.buildId ?? '');
}

async function versioningInfo(handle: WorkflowHandle): Promise<{ behavior: string; buildId: string }> {
  const info = (await handle.describe()).raw.workflowExecutionInfo?.versioningInfo;
  return { behavior: String(info?.behavior ?? ''), buildId: info?.deploymentVersion?.buildId ?? '' };
}

const lines = (file: string): string[] =>
  existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];

it('AUTO_UPGRADE (default): the run waiting for an approval finishes on the new version after the old worker stops', async () => {
  const { cwd, marker, env, taskQueue } = await setUp('versioning-auto');
  const v1 = await versionedWorker(env, ['--build-id', 'v1']);
  expect(v1.output()).toMatch(/version versioning-auto-[\w-]+\.v1 \(auto-upgrade\)/);
  const handle = await suite.client().workflow.start('agentWorkflow', {
    taskQueue,
    workflowId: `versioning-auto-${randomUUID()}`,
    args: [{ task: 't', model: 'scripted', cwd }],
  });
  const p = await pending(handle);
  expect(await versioningInfo(handle)).toEqual({ behavior: '2', buildId: 'v1' }); // 2 = AUTO_UPGRADE
  await v1.kill('SIGTERM');

  await versionedWorker(env, ['--build-id', 'v2']);
  // What the user sees: `tether approve` applies the decision at once (the update ran on v2).
  const approved = await runCli(['approve', handle.workflowId, p.approvalId], { cwd, env });
  expect(approved.code).toBe(0);
  expect(approved.stdout + approved.stderr).not.toMatch(/sent as a signal/);
  expect((await handle.result()) as AgentResult).toMatchObject({
    status: 'completed',
    answer: 'finished after the approval',
  });
  expect(lines(marker)).toEqual(['ran']);
  const ids = await taskBuildIds(handle);
  expect(ids[0]).toBe('v1');
  expect(ids.at(-1)).toBe('v2');
}, 240_000);

it('PINNED: the decision is recorded, but the run goes on only when a worker of its own version polls again', async () => {
  const { cwd, marker, env, taskQueue } = await setUp('versioning-pinned');
  const p1 = await versionedWorker(env, ['--build-id', 'p1', '--versioning', 'pinned']);
  const handle = await suite.client().workflow.start('agentWorkflow', {
    taskQueue,
    workflowId: `versioning-pinned-${randomUUID()}`,
    args: [{ task: 't', model: 'scripted', cwd }],
  });
  const p = await pending(handle);
  expect(await versioningInfo(handle)).toEqual({ behavior: '1', buildId: 'p1' }); // 1 = PINNED
  await p1.kill('SIGTERM');

  await versionedWorker(env, ['--build-id', 'p2', '--versioning', 'pinned']);
  // What the user sees: no worker of p1 answers the update, so `tether approve` sends the durable signal and says so.
  const queued = await runCli(['approve', handle.workflowId, p.approvalId], { cwd, env });
  expect(queued.stdout + queued.stderr).toMatch(/sent as a signal and applies when a worker runs the workflow/);
  // The old version comes back (a drained worker kept for pinned runs): the run finishes there, never on p2.
  await versionedWorker(env, ['--build-id', 'p1', '--versioning', 'pinned'], false);
  expect((await handle.result()) as AgentResult).toMatchObject({
    status: 'completed',
    answer: 'finished after the approval',
  });
  expect(lines(marker)).toEqual(['ran']);
  expect(new Set(await taskBuildIds(handle))).toEqual(new Set(['p1']));
}, 240_000);
