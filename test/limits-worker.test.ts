// Per-task limits at `tether worker` start, with real worker processes: where no cgroup can be made (TETHER_CGROUP_ROOT
// pointed at a directory with none) the worker says so once, with how to fix it, and runs; and the cgroups a
// SIGKILLed worker left are removed by the next worker on this machine.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, inject, it } from 'vitest';
import type { AgentResult } from '../src/common/types.js';
import { detectCgroups } from '../src/environments/cgroups/detect.js';
import { until } from './support/cli.js';
import { lastToolResults, startScriptedModel } from './support/scripted-model.js';
import { workerEnv, workerProcessSuite } from './support/worker-process.js';

const { client, workers, models } = workerProcessSuite();
const usable = detectCgroups('/sys/fs/cgroup');

it('without a usable cgroup the worker says so at start, how to fix it, and runs commands', async () => {
  const model = await startScriptedModel([
    { toolCalls: [{ name: 'terminal', arguments: { command: 'echo runs' } }] },
    { content: 'done' },
  ]);
  models.push(model);
  const { env, taskQueue } = workerEnv(inject('temporalAddress'), model.url, 'nocg');
  const w = await workers.start({ ...env, TETHER_CGROUP_ROOT: mkdtempSync(join(tmpdir(), 'tether-no-cgroups-')) });
  const said = w
    .output()
    .split('\n')
    .filter((l) => l.includes('terminal.local.sandbox.limits'));
  expect(said).toEqual([
    expect.stringMatching(
      /^tether: warning: terminal\.local\.sandbox\.limits: no cgroup can be made here \(no cgroup file system is mounted under \S+\), so a task's commands are held to no memory, process or CPU limit: run the worker as root, or in a cgroup v2 subtree delegated to its user \(systemd-run --user --scope -p Delegate=yes tether worker\), or set terminal\.local\.sandbox\.limits: off$/,
    ),
  ]);
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-nocg-')));
  const result = (await client().workflow.execute('agentWorkflow', {
    taskQueue,
    workflowId: `nocg-${randomUUID()}`,
    args: [{ task: 't', model: 'scripted', cwd }],
  })) as AgentResult;
  expect(result.status).toBe('completed');
  expect(lastToolResults(model)).toEqual([{ exit_code: 0, output: 'runs\n' }]);
  await w.kill();
}, 120_000);

it.skipIf('none' in usable || !('support' in usable && usable.support.version === 1))(
  "a killed worker's cgroups are gone when the next worker starts",
  async () => {
    const model = await startScriptedModel([
      { toolCalls: [{ name: 'terminal', arguments: { command: 'sleep 300', background: true } }] },
      { content: 'done' },
    ]);
    models.push(model);
    const { env, taskQueue } = workerEnv(inject('temporalAddress'), model.url, 'cgleft');
    const first = await workers.start(env);
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-cgleft-')));
    await client().workflow.start('agentWorkflow', {
      taskQueue,
      workflowId: `cgleft-${randomUUID()}`,
      args: [{ task: 't', model: 'scripted', cwd }],
    });
    const pids = '/sys/fs/cgroup/pids';
    const mine = (): string[] => readdirSync(pids).filter((n) => n.startsWith(`tether-${first.child.pid}-`));
    await until(
      'its task group exists',
      () => mine().some((g) => readdirSync(join(pids, g)).some((t) => t.startsWith('task-'))),
      60_000,
    );
    const [group] = mine();
    await first.kill('SIGKILL');
    expect(existsSync(join(pids, group!))).toBe(true);
    const next = await workers.start(workerEnv(inject('temporalAddress'), model.url, 'cgleft2').env);
    expect(existsSync(join(pids, group!))).toBe(false);
    await next.kill();
  },
  120_000,
);
