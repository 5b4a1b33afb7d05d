// Visibility on the real Temporal server (SQL visibility in PostgreSQL): `tether cluster setup` on a namespace made
// fresh for this test, then a run waiting for an approval listed by `tether list` and `tether approvals` with no
// worker running.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { runCli, until } from '../support/cli.js';
import { startScriptedModel, type ScriptedModel } from '../support/scripted-model.js';
import { WorkerPool, workerEnv } from '../support/worker-process.js';

let connection: Connection;
let model: ScriptedModel;
const workers = new WorkerPool();
const namespace = `tether-fresh-${randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  connection = await Connection.connect({ address: inject('temporalAddress') });
  await connection.workflowService.registerNamespace({
    namespace,
    workflowExecutionRetentionPeriod: msToTs('1 day'),
  });
  // A new namespace reaches every service's namespace cache a few seconds after it is registered.
  await until('the new namespace to be usable', async () =>
    connection.workflowService
      .listWorkflowExecutions({ namespace, pageSize: 1 })
      .then(() => true)
      .catch(() => false),
  );
  model = await startScriptedModel([
    { toolCalls: [{ name: 'terminal', arguments: { command: 'kubectl delete pod demo 2>/dev/null; true' } }] },
    { content: 'done' },
  ]);
}, 120_000);
afterAll(async () => {
  await workers.killAll();
  await model?.close();
  await connection?.close();
});

it('cluster setup on a fresh namespace, then a waiting run listed from visibility with no worker', async () => {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-cluster-visibility-')));
  const { env } = workerEnv(inject('temporalAddress'), model.url, 'cluster-visibility');
  env.TEMPORAL_NAMESPACE = namespace;
  const tether = (args: string[]): ReturnType<typeof runCli> => runCli(args, { cwd, env });

  const before = await tether(['list', '--status', 'waiting-approval']);
  expect(before.code).not.toBe(0);
  expect(before.stderr.trim().split('\n')).toHaveLength(1);
  expect(before.stderr).toContain('tether cluster setup');

  const setup = await tether(['cluster', 'setup']);
  expect(setup.code, setup.stderr).toBe(0);
  expect(setup.stdout).toContain(`namespace '${namespace}'`);
  expect(setup.stdout).toMatch(/registered 6 search attributes/);
  const again = await tether(['cluster', 'setup']);
  expect(again.code, again.stderr).toBe(0);
  expect(again.stdout).toContain('nothing to do');

  const worker = await workers.start(env);
  const started = await tether(['run', '--detach', '--no-prompt', '--model', 'scripted', 'delete the demo pod']);
  expect(started.code, started.stderr).toBe(0);
  const workflowId = started.stdout.trim();
  await until('the run to wait for its approval', async () => {
    const listed = await tether(['list', '--status', 'waiting-approval', '--json']);
    return (JSON.parse(listed.stdout || '[]') as { workflowId: string }[]).some((r) => r.workflowId === workflowId);
  });
  await worker.kill('SIGKILL');

  // With every worker gone, both listings still answer from the server's visibility store.
  const listed = await tether(['list', '--status', 'waiting-approval', '--json']);
  expect(listed.code, listed.stderr).toBe(0);
  expect((JSON.parse(listed.stdout) as { workflowId: string }[]).map((r) => r.workflowId)).toEqual([workflowId]);
  const approvals = await tether(['approvals', '--json']);
  expect(approvals.code, approvals.stderr).toBe(0);
  const mine = JSON.parse(approvals.stdout) as { workflowId: string; command: string }[];
  expect(mine).toHaveLength(1);
  expect(mine[0]).toMatchObject({ workflowId });
  expect(mine[0]!.command).toContain('kubectl delete pod demo');
}, 240_000);
