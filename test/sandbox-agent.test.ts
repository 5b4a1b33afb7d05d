// A real agent run (worker, dev server, scripted model) in manual mode: a dangerous command a person approves
// still runs inside the local sandbox, so it cannot write /etc or signal the worker, and the model sees why.
import { existsSync, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseConfig } from '../src/config/config.js';
import type { AgentResult, AgentState } from '../src/common/types.js';
import { harness, type Harness } from './support/agent-harness.js';
import { until } from './support/cli.js';
import { lastToolResults, startScriptedModel } from './support/scripted-model.js';

let h: Harness;
beforeAll(async () => {
  h = await harness(
    parseConfig({
      approvals: { mode: 'manual' },
      terminal: { backend: 'local', local: { sandbox: { enabled: true } } },
    }),
  );
});
afterAll(async () => {
  await h.close();
});

it('an approved command still cannot write outside the allowed paths or signal the worker; the model sees the real errors', async () => {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-sbx-agent-')));
  const probe = `/etc/tether-sandbox-agent-${randomUUID()}`;
  // `kubectl delete` asks (rule kubectl-delete); kubectl is not installed, so only the rest does anything.
  const command = `kubectl delete pod demo 2>/dev/null; echo inside > done.txt; kill -TERM ${process.pid}; echo pwned > ${probe}`;
  const model = await startScriptedModel([
    { toolCalls: [{ name: 'terminal', arguments: { command } }] },
    { content: 'finished' },
  ]);
  await h.withWorker(model.url, async () => {
    const handle: WorkflowHandle = await h.client.workflow.start('agentWorkflow', {
      taskQueue: h.taskQueue,
      workflowId: `sbx-${randomUUID()}`,
      args: [{ task: 't', model: 'scripted', cwd }],
    });
    let pending: AgentState['pendingApprovals'] = [];
    await until(
      'the command waits for approval',
      async () => (pending = (await handle.query<AgentState>('state')).pendingApprovals).length === 1,
      30_000,
    );
    expect(pending[0]!.command).toBe(command);
    await handle.executeUpdate('decideApproval', {
      args: [{ approvalId: pending[0]!.approvalId, choice: 'once', by: 'test' }],
    });
    expect(((await handle.result()) as AgentResult).status).toBe('completed');
  });
  const [result] = lastToolResults(model) as { exit_code: number; output: string; sandbox?: string }[];
  expect(result!.output).toMatch(new RegExp(`${probe}: Read-only file system`));
  expect(result!.output).toMatch(/kill: .*No such process/);
  expect(result!.sandbox).toMatch(/terminal\.local\.sandbox\.writable/);
  expect(existsSync(probe)).toBe(false);
  // The approved command did run: what it may do, it did.
  expect(existsSync(join(cwd, 'done.txt'))).toBe(true);
  expect(model.errors).toEqual([]);
  await model.close();
}, 120_000);
