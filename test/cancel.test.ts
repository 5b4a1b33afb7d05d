// `tether cancel` stops running commands before the run says cancelled: the command's process is gone when the
// cancel returns, the history shows the tool call's cancellation before the run's, and nothing runs afterwards.
import { existsSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { expect, inject, it } from 'vitest';
import { runCli, until } from './support/cli.js';
import { recordHistory } from './support/history.js';
import { startScriptedModel } from './support/scripted-model.js';
import { workerEnv, workerProcessSuite } from './support/worker-process.js';

const { client: temporal, workers } = workerProcessSuite();

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

it('cancel returns only after the running command is dead, and the command never finishes', async () => {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-cancel-')));
  const late = join(cwd, 'late.txt');
  const pidFile = join(cwd, 'pid');
  const model = await startScriptedModel([
    { toolCalls: [{ name: 'terminal', arguments: { command: `echo $$ > ${pidFile}; sleep 15; echo late >> ${late}` } }] },
    { content: 'should never be asked' },
  ]);
  const { env, taskQueue } = workerEnv(inject('temporalAddress'), model.url, 'cancel');
  const worker = await workers.start(env);
  const workflowId = `cancel-${randomUUID()}`;
  await temporal().workflow.start('agentWorkflow', { taskQueue, workflowId, args: [{ task: 'sleep then write', model: 'scripted', cwd }] });
  await until('the command to start', () => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '');
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  const started = Date.now();
  expect(alive(pid)).toBe(true);

  const cancel = await runCli(['cancel', workflowId], { cwd, env });
  // The moment `tether cancel` returns, the command's shell is already gone.
  const aliveAfterCancel = alive(pid);
  expect(cancel.stderr).toBe('');
  expect(cancel.code).toBe(0);
  expect(cancel.stdout).toContain(`${workflowId} cancelled`);
  expect(cancel.stdout).toMatch(/runTool: stopped \(.*cancelled and killed/);
  expect(aliveAfterCancel).toBe(false);

  // History: the tool call confirmed it stopped before the run was closed as cancelled.
  const events = (await temporal().workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const kinds = events.map((e) => Object.keys(e).find((k) => k.endsWith('EventAttributes')) ?? '');
  const toolCancelled = kinds.indexOf('activityTaskCanceledEventAttributes');
  const runCancelled = kinds.indexOf('workflowExecutionCanceledEventAttributes');
  expect(toolCancelled).toBeGreaterThan(0);
  expect(runCancelled).toBeGreaterThan(toolCancelled);

  // What the command would have done after the cancel never happens (it would have written at 15 s).
  await new Promise((r) => setTimeout(r, Math.max(0, started + 16_000 - Date.now())));
  if (existsSync(late)) console.log('DEBUG', readFileSync(late, 'utf8'), (await import('node:fs')).statSync(late).mtime.toISOString(), new Date().toISOString(), JSON.stringify(kinds), worker.output());
  expect(existsSync(late)).toBe(false);
  expect(model.requests).toHaveLength(1);
  recordHistory(inject('temporalAddress'), workflowId, 'cancelled-tool');
  await worker.kill('SIGTERM');
  await model.close();
}, 120_000);
