// The approval notice (approvals.webhook_url) is delivered at least once: with the endpoint down for 30 s and the
// worker killed and replaced meanwhile, the notice arrives once the endpoint is back, `tether status` says whether it
// was delivered, and the approval still decides the run. Real `tether worker` processes, a real HTTP endpoint.
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { expect, inject, it } from 'vitest';
import { freePort } from '../src/temporal/dev-server.js';
import type { AgentResult, AgentState } from '../src/common/types.js';
import { runCli, until } from './support/cli.js';
import { recordHistory } from './support/history.js';
import { approvalScenario } from './support/approval-scenario.js';
import { workerProcessSuite } from './support/worker-process.js';

const suite = workerProcessSuite();

/** The endpoint, listening only from `open()` on (before that its port refuses connections: it is down). */
function endpoint(port: number) {
  const bodies: { approval?: { approvalId?: string } }[] = [];
  let server: Server | undefined;
  return {
    bodies,
    open: () =>
      new Promise<void>((resolve) => {
        server = createServer((req, res) => {
          let body = '';
          req.on('data', (c: Buffer) => (body += c.toString()));
          req.on('end', () => {
            bodies.push(JSON.parse(body) as { approval?: { approvalId?: string } });
            res.writeHead(204).end();
          });
        });
        server.listen(port, '127.0.0.1', () => resolve());
      }),
    close: () => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())),
  };
}

async function pendingApproval(handle: WorkflowHandle): Promise<string> {
  let id: string | undefined;
  await until('a pending approval', async () => {
    id = (await handle.query<AgentState>('state')).pendingApprovals[0]?.approvalId;
    return id !== undefined;
  });
  return id!;
}

it('reaches an endpoint that was down for 30 s across a worker restart; the approval then decides the run', async () => {
  const { cwd, marker, env, taskQueue } = await approvalScenario(inject('temporalAddress'), 'notice', suite.models);
  const port = await freePort();
  writeFileSync(join(env.TETHER_HOME!, 'config.yaml'), `approvals:\n  webhook_url: http://127.0.0.1:${port}/hook\n`);
  const hook = endpoint(port);
  const first = await suite.workers.start(env);
  const handle = await suite.client().workflow.start('agentWorkflow', {
    taskQueue,
    workflowId: `notice-${randomUUID()}`,
    args: [{ task: 't', model: 'scripted', cwd }],
  });
  const approvalId = await pendingApproval(handle);
  const downSince = Date.now();
  const status = async (): Promise<string> => (await runCli(['status', handle.workflowId], { cwd, env })).stdout;
  await until('a failed try', async () => /notice: not delivered yet \(.*tries failed/.test(await status()), 30_000);

  // The worker dies while the endpoint is down; another takes its place.
  await first.kill('SIGKILL');
  await suite.workers.start(env);
  await new Promise((r) => setTimeout(r, Math.max(0, 30_000 - (Date.now() - downSince))));
  expect(hook.bodies).toEqual([]);
  await hook.open();
  try {
    await until('the notice', () => hook.bodies.length > 0, 90_000);
    expect(hook.bodies[0]!.approval?.approvalId).toBe(approvalId);
    await until('status to say delivered', async () => /notice: delivered/.test(await status()), 30_000);
    // Nothing ran while the notice was on its way; the person's decision runs the command, once.
    expect(() => readFileSync(marker, 'utf8')).toThrow();
    const approved = await runCli(['approve', handle.workflowId, approvalId], { cwd, env });
    expect(approved.code).toBe(0);
    expect((await handle.result()) as AgentResult).toMatchObject({
      status: 'completed',
      answer: 'finished after the approval',
    });
    expect(readFileSync(marker, 'utf8')).toBe('ran\n');
    // Delivered once: it stopped trying after the 2xx.
    await new Promise((r) => setTimeout(r, 2_000));
    expect(hook.bodies).toHaveLength(1);
    recordHistory(inject('temporalAddress'), handle.workflowId, 'approval-notice');
  } finally {
    await hook.close();
  }
}, 240_000);
