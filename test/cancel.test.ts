// `tether cancel` stops running commands before the run says cancelled: the command's process is gone when the
// cancel returns, the history shows the tool call's cancellation before the run's, and nothing runs afterwards.
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomInt, randomUUID } from 'node:crypto';
import { expect, inject, it } from 'vitest';
import { runCli, until } from './support/cli.js';
import { recordHistory } from './support/history.js';
import { startScriptedModel } from './support/scripted-model.js';
import { workerEnv, workerProcessSuite } from './support/worker-process.js';

const { client: temporal, workers } = workerProcessSuite();

/**
 * Live (not zombie) processes whose command line contains `token`, read from the host's /proc: the local sandbox
 * gives commands a PID namespace of their own, so a pid the command reports is not the host's.
 */
function processesWith(token: string): number[] {
  const found: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0').join(' ');
      const state = readFileSync(`/proc/${d}/stat`, 'utf8').replace(/^.*\) /, '')[0];
      if (cmd.includes(token) && state !== 'Z') found.push(Number(d));
    } catch {
      // the process ended while we looked
    }
  }
  return found;
}

it('cancel returns only after the running command is dead, and the command never finishes', async () => {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-cancel-')));
  const late = join(cwd, 'late.txt');
  const pidFile = join(cwd, 'started');
  // A sleep of 15 s with a duration no other process has: how the test finds the command's process on the host.
  const token = `15.${String(randomInt(1_000_000)).padStart(6, '0')}1`;
  const model = await startScriptedModel([
    // A first call makes the task's environment, so the second goes to this worker's own queue (the pinned route).
    { toolCalls: [{ name: 'terminal', arguments: { command: 'true' } }] },
    {
      toolCalls: [
        { name: 'terminal', arguments: { command: `echo started > ${pidFile}; sleep ${token}; echo late >> ${late}` } },
      ],
    },
    { content: 'should never be asked' },
  ]);
  const { env, taskQueue } = workerEnv(inject('temporalAddress'), model.url, 'cancel');
  const worker = await workers.start(env);
  const workflowId = `cancel-${randomUUID()}`;
  await temporal().workflow.start('agentWorkflow', {
    taskQueue,
    workflowId,
    args: [{ task: 'sleep then write', model: 'scripted', cwd }],
  });
  await until('the command to start', () => existsSync(pidFile) && processesWith(`sleep ${token}`).length > 0);
  const started = Date.now();

  const cancel = await runCli(['cancel', workflowId], { cwd, env });
  // The moment `tether cancel` returns, the command's shell is already gone.
  const aliveAfterCancel = processesWith(`sleep ${token}`);
  expect(cancel.stderr).toBe('');
  expect(cancel.code).toBe(0);
  expect(cancel.stdout).toContain(`${workflowId} cancelled`);
  expect(cancel.stdout).toMatch(/stopped: terminal: .*\(it said: Command was cancelled and killed\)/);
  expect(aliveAfterCancel).toEqual([]);

  // History: the tool call confirmed it stopped before the run was closed as cancelled.
  const events = (await temporal().workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const kinds = events.map((e) => Object.keys(e).find((k) => k.endsWith('EventAttributes')) ?? '');
  const toolCancelled = kinds.indexOf('activityTaskCanceledEventAttributes');
  const runCancelled = kinds.indexOf('workflowExecutionCanceledEventAttributes');
  expect(toolCancelled).toBeGreaterThan(0);
  expect(runCancelled).toBeGreaterThan(toolCancelled);

  // What the command would have done after the cancel never happens (it would have written at 15 s).
  await new Promise((r) => setTimeout(r, Math.max(0, started + 16_000 - Date.now())));
  expect(existsSync(late)).toBe(false);
  expect(model.requests).toHaveLength(2);
  recordHistory(inject('temporalAddress'), workflowId, 'cancelled-tool');
  await worker.kill('SIGTERM');
  await model.close();
}, 120_000);
