// A worker killed with SIGKILL mid-run: a new worker completes the run; a world-changing call is not run twice.
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { inject } from 'vitest';
import type { AgentResult } from '../src/common/types.js';
import { until } from './support/cli.js';
import { startScriptedModel, type ScriptedModel } from './support/scripted-model.js';
import { workerEnv, workerProcessSuite } from './support/worker-process.js';

const { client: temporal, workers } = workerProcessSuite();

/** Pids of live (not zombie) processes whose working directory is `dir`. */
function processesIn(dir: string): number[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
        return readlinkSync(`/proc/${p}/cwd`) === dir && stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
      } catch {
        return false; // gone meanwhile, or not ours to read
      }
    })
    .map(Number);
}

it('survives SIGKILL of the worker during a model call and during a terminal command', async () => {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-crash-')));
  const log = join(cwd, 'log.txt');
  const model: ScriptedModel = await startScriptedModel([
    // Turn 1 answers slowly, so the first worker dies while waiting for it; the retry gets the same answer.
    {
      delayMs: 2_000,
      toolCalls: [
        { name: 'terminal', arguments: { command: `echo started >> ${log}; sleep 6; echo finished >> ${log}` } },
      ],
    },
    { content: 'recovered after two crashes' },
  ]);
  const { env, taskQueue } = workerEnv(inject('temporalAddress'), model.url, 'crash');
  const first = await workers.start(env);
  const handle = await temporal().workflow.start('agentWorkflow', {
    taskQueue,
    workflowId: `crash-${randomUUID()}`,
    args: [{ task: 'crash twice', model: 'scripted', cwd, limits: { heartbeatTimeoutSeconds: 3 } }],
  });

  await until('the first model request', () => model.requests.length >= 1);
  await first.kill('SIGKILL');
  const second = await workers.start(env);

  await until('the command to start', () => existsSync(log));
  await second.kill('SIGKILL');
  const third = await workers.start(env);

  const result = (await handle.result()) as AgentResult;
  expect(result).toMatchObject({ status: 'completed', answer: 'recovered after two crashes', turns: 2, toolCalls: 1 });
  expect(model.errors).toEqual([]);
  // The model call was retried on another worker (two requests for turn 1, then turn 2).
  expect(model.requests.length).toBe(3);
  // The command was not run again, and the model was told it may have partly run.
  const toolMessage = model.requests[2]!.messages.find((m) => m.role === 'tool')!;
  expect(JSON.parse(toolMessage.content!)).toMatchObject({
    interrupted: true,
    error: expect.stringMatching(/was interrupted: the worker running it was lost.*may have partly run/),
  });
  // Its orphaned process group was killed with the dead worker: it never finished. A survivor would write
  // "finished" before exiting, so wait for every process in the run's directory to be gone, then look.
  await until("no process left in the run's directory", () => processesIn(cwd).length === 0, 30_000);
  expect(readFileSync(log, 'utf8')).toBe('started\n');
  await third.kill('SIGTERM');
  await model.close();
}, 120_000);
