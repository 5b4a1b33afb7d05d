// Fault injection: the worker is killed with SIGKILL at random moments, 20 times, during a run whose terminal commands
// each append one line to a file. No command's line may appear twice, and the run completes.
import { existsSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomInt, randomUUID } from 'node:crypto';
import { expect, inject, it } from 'vitest';
import type { AgentResult } from '../src/common/types.js';
import { startScriptedModel } from './support/scripted-model.js';
import { workerEnv, workerProcessSuite } from './support/worker-process.js';

const { client: temporal, workers } = workerProcessSuite();

it('survives 20 SIGKILLs of its worker without running any command twice', async () => {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-fault-')));
  const file = join(cwd, 'lines.txt');
  const commands = 40;
  const model = await startScriptedModel([
    ...Array.from({ length: commands }, (_, i) => ({
      toolCalls: [
        {
          name: 'terminal',
          arguments: { command: `sleep 0.$((RANDOM % 4)); echo line-${i + 1} >> ${file}; sleep 0.2` },
        },
      ],
    })),
    { content: 'all lines written' },
  ]);
  const { env, taskQueue } = workerEnv(inject('temporalAddress'), model.url, 'fault');
  let worker = await workers.start(env);
  const handle = await temporal().workflow.start('agentWorkflow', {
    taskQueue,
    workflowId: `fault-${randomUUID()}`,
    args: [
      {
        task: 'write lines',
        model: 'scripted',
        cwd,
        limits: { maxTurns: commands + 5, heartbeatTimeoutSeconds: 2, environmentWorkerTimeoutSeconds: 2 },
      },
    ],
  });
  const kills: number[] = [];
  for (let k = 0; k < 20; k += 1) {
    await new Promise((r) => setTimeout(r, randomInt(200, 1_500)));
    kills.push(existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).length : 0);
    await worker.kill('SIGKILL');
    worker = await workers.start(env);
  }
  const result = (await handle.result()) as AgentResult;
  expect(result.status).toBe('completed');
  expect(result.answer).toBe('all lines written');
  const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  expect(new Set(lines).size).toBe(lines.length); // no line twice
  expect(lines.length).toBeGreaterThan(0);
  expect(lines.every((l) => /^line-\d+$/.test(l))).toBe(true);
  expect(kills).toHaveLength(20);
  // Every command either wrote its line or was reported to the model as interrupted (never re-run).
  const reported = model.requests
    .at(-1)!
    .messages.filter((m) => m.role === 'tool' && /"interrupted":true|did not complete/.test(m.content ?? ''));
  expect(lines.length + reported.length).toBeGreaterThanOrEqual(commands);
  expect(model.errors).toEqual([]);
  await model.close();
}, 600_000);
