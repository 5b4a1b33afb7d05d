// Per-task limits through the real worker: with `limits: {pids: 256, memory: 512m}` one run's command that starts
// 2,000 sleeping processes stops at the process limit and its 2 GiB allocation at the memory limit, each result naming
// the limit, while a second run's command on the same worker completes meanwhile.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseConfig } from '../src/config/config.js';
import { detectCgroups } from '../src/environments/cgroups/detect.js';
import type { AgentResult } from '../src/common/types.js';
import { harness, type Harness } from './support/agent-harness.js';
import { until } from './support/cli.js';
import { startScriptedModel, type ChatRequest, type ScriptedReply } from './support/scripted-model.js';

const usable = detectCgroups('/sys/fs/cgroup');

let h: Harness;
beforeAll(async () => {
  h = await harness(
    parseConfig({
      approvals: { mode: 'off' },
      terminal: { backend: 'local', local: { sandbox: { limits: { pids: 256, memory: '512m' } } } },
    }),
  );
});
afterAll(async () => {
  await h.close();
});

const terminal = (command: string): ScriptedReply => ({
  toolCalls: [{ name: 'terminal', arguments: { command, timeout: 120 } }],
});
const taskOf = (req: ChatRequest): string => req.messages.find((m) => m.role === 'user')?.content ?? '';
const results = (req: ChatRequest): Record<string, unknown>[] =>
  req.messages.filter((m) => m.role === 'tool').map((m) => JSON.parse(m.content!) as Record<string, unknown>);

it.skipIf('none' in usable)(
  'a fork storm and a 2 GiB allocation in one run stop at its limits, named; another run’s command completes meanwhile',
  async () => {
    const stormDir = realpathSync(mkdtempSync(join(tmpdir(), 'tether-storm-')));
    const calmDir = realpathSync(mkdtempSync(join(tmpdir(), 'tether-calm-')));
    let stormResultAt = 0;
    let storm: Record<string, unknown>[] = [];
    const model = await startScriptedModel([
      (req) =>
        taskOf(req) === 'storm'
          ? terminal('touch storm.started; for i in $(seq 2000); do sleep 300 & done; echo all started')
          : terminal('echo calm'),
      (req) => {
        if (taskOf(req) !== 'storm') return { content: 'done' };
        stormResultAt = Date.now();
        return terminal('python3 -c "b = bytearray(2 * 1024 ** 3); print(len(b))"');
      },
      (req) => {
        storm = results(req);
        return { content: 'done' };
      },
    ]);
    await h.withWorker(model.url, async () => {
      const a = await h.client.workflow.start('agentWorkflow', {
        taskQueue: h.taskQueue,
        workflowId: `storm-${randomUUID()}`,
        args: [{ task: 'storm', model: 'scripted', cwd: stormDir }],
      });
      await until('the storm has started', () => existsSync(join(stormDir, 'storm.started')), 60_000);
      const b = await h.client.workflow.execute('agentWorkflow', {
        taskQueue: h.taskQueue,
        workflowId: `calm-${randomUUID()}`,
        args: [{ task: 'calm', model: 'scripted', cwd: calmDir }],
      });
      const calmDoneAt = Date.now();
      expect((b as AgentResult).status).toBe('completed');
      // Run B's command completed while run A's storm was still running (its result had not come back yet).
      expect(stormResultAt === 0 || calmDoneAt < stormResultAt).toBe(true);
      expect(((await a.result()) as AgentResult).status).toBe('completed');
    });
    expect(model.errors).toEqual([]);
    await model.close();
    const [forks, big] = storm;
    expect(forks!.output).not.toMatch(/all started/);
    expect(forks!.output).toMatch(/fork: (retry: )?Resource temporarily unavailable/);
    expect(forks!.sandbox).toMatch(
      /the task reached its process limit \(256 processes and threads, terminal\.local\.sandbox\.limits\.pids\)/,
    );
    expect(big).toMatchObject({ exit_code: 137 });
    expect(big!.sandbox).toMatch(
      /the task reached its memory limit \(512 MiB, terminal\.local\.sandbox\.limits\.memory\): the kernel killed one of its processes \(out of memory; a process killed so exits with 137/,
    );
  },
  180_000,
);
