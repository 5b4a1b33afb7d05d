// Two worker processes on one task queue: a task's terminal calls all reach the worker holding its environment, so
// cd, export and background processes stay visible; when that worker is killed, the next command runs on the other
// worker in a new environment, and the result says so.
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { expect, inject, it } from 'vitest';
import type { AgentResult } from '../src/common/types.js';
import { until } from './support/cli.js';
import { startScriptedModel, type ChatRequest } from './support/scripted-model.js';
import { workerEnv, workerProcessSuite, type WorkerProcess } from './support/worker-process.js';

const { client: temporal, workers } = workerProcessSuite();

const CHECKS = 6;
const probe = { name: 'terminal', arguments: { command: 'echo "$WORKER_NAME:$ROUTE_VAR:$(pwd)"' } };

function toolResults(req: ChatRequest): Record<string, unknown>[] {
  return req.messages
    .filter((m) => m.role === 'tool')
    .map((m) => JSON.parse(m.content ?? '{}') as Record<string, unknown>);
}

it('keeps a task on the worker holding its environment, and recreates it elsewhere when that worker dies', async () => {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-route-')));
  const model = await startScriptedModel([
    {
      toolCalls: [
        {
          name: 'terminal',
          arguments: { command: 'mkdir -p sub && cd sub && export ROUTE_VAR=kept && echo "$WORKER_NAME"' },
        },
      ],
    },
    { toolCalls: [{ name: 'terminal', arguments: { command: 'sleep 300', background: true } }] },
    ...Array.from({ length: CHECKS }, () => ({ toolCalls: [probe] })),
    { toolCalls: [{ name: 'process', arguments: { action: 'list' } }] },
    // The test kills the holding worker while this answer is on its way.
    { delayMs: 1_500, toolCalls: [probe] },
    { toolCalls: [{ name: 'process', arguments: { action: 'list' } }] },
    { content: 'done' },
  ]);
  const base = workerEnv(inject('temporalAddress'), model.url, 'route');
  // Commands see none of the worker's variables unless named: this one tells which worker ran them.
  writeFileSync(join(base.env.TETHER_HOME!, 'config.yaml'), 'terminal:\n  env_passthrough: [WORKER_NAME]\n');
  const pool: Record<string, WorkerProcess> = {
    A: await workers.start({ ...base.env, WORKER_NAME: 'A' }),
    B: await workers.start({ ...base.env, WORKER_NAME: 'B' }),
  };
  const handle = await temporal().workflow.start('agentWorkflow', {
    taskQueue: base.taskQueue,
    workflowId: `route-${randomUUID()}`,
    args: [
      {
        task: 'routing',
        model: 'scripted',
        cwd,
        limits: { heartbeatTimeoutSeconds: 3, environmentWorkerTimeoutSeconds: 3 },
      },
    ],
  });

  // Turn CHECKS + 4 is requested once the process list (turn CHECKS + 3) ran: every call so far went to the holder.
  await until('the calls on the first worker', () => model.requests.length >= CHECKS + 4, 90_000);
  const before = toolResults(model.requests[CHECKS + 3]!);
  const holder = String(before[0]!.output).trim();
  expect(['A', 'B']).toContain(holder);
  expect(before[1]).toMatchObject({ process_id: expect.stringMatching(/^proc_/), status: 'running' });
  for (const r of before.slice(2, 2 + CHECKS)) expect(r.output).toBe(`${holder}:kept:${cwd}/sub\n`);
  expect(before[2 + CHECKS]!.processes as { command: string; status: string }[]).toEqual([
    expect.objectContaining({ command: 'sleep 300', status: 'running' }),
  ]);

  await pool[holder]!.kill('SIGKILL');
  const result = (await handle.result()) as AgentResult;
  expect(result).toMatchObject({ status: 'completed', answer: 'done' });
  expect(model.errors).toEqual([]);

  const after = toolResults(model.requests.at(-1)!).slice(-2);
  const other = holder === 'A' ? 'B' : 'A';
  expect(after[0]).toMatchObject({
    exit_code: 0,
    output: `${other}::${cwd}\n`,
    environment_recreated: expect.stringMatching(/worker that held this task's local environment was lost/),
  });
  expect(after[1]).toMatchObject({ processes: [] });
  await pool[other]!.kill('SIGTERM');
  await model.close();
}, 180_000);
