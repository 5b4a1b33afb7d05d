// `tether attach` and `tether status` follow a run across continue-as-new, and attach asks about approvals.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { AgentState } from '../src/common/types.js';
import { harness, type Harness } from './support/agent-harness.js';
import { cliPath, runCli, until } from './support/cli.js';
import { startScriptedModel } from './support/scripted-model.js';

let h: Harness;
beforeAll(async () => {
  h = await harness();
});
afterAll(() => h.close());

const cwd = (): string => realpathSync(mkdtempSync(join(tmpdir(), 'tether-follow-')));

function attach(workflowId: string, args: string[], env: Record<string, string>) {
  const child = spawn('node', [cliPath, 'attach', workflowId, ...args], {
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((r) => child.on('exit', r));
  return { child, exited, out: () => stdout, err: () => stderr };
}

it('attach and status follow a run across continue-as-new', async () => {
  const turns = 10;
  const model = await startScriptedModel([
    ...Array.from({ length: turns - 1 }, (_, i) => ({
      delayMs: 150,
      toolCalls: [
        { name: 'todo', arguments: { todos: [{ id: 't', content: `step ${i}`, status: 'in_progress' as const }] } },
      ],
    })),
    { content: 'finished in a later run' },
  ]);
  const env = { TEMPORAL_ADDRESS: h.address, TETHER_TASK_QUEUE: h.taskQueue };
  await h.withWorker(model.url, async () => {
    const workflowId = `follow-${randomUUID()}`;
    await h.client.workflow.start('agentWorkflow', {
      taskQueue: h.taskQueue,
      workflowId,
      args: [{ task: 't', model: 'scripted', cwd: cwd(), limits: { continueAsNewAfterEvents: 30 } }],
    });
    const a = attach(workflowId, ['--json', '--no-prompt'], env);
    expect(await a.exited).toBe(0);
    expect(JSON.parse(a.out())).toMatchObject({
      workflowId,
      status: 'completed',
      answer: 'finished in a later run',
      turns,
    });
    const status = await runCli(['status', workflowId, '--json'], { cwd: tmpdir(), env });
    const s = JSON.parse(status.stdout) as { status: string; turns: number };
    expect(s).toMatchObject({ status: 'completed', turns });
    const live = await h.client.workflow.getHandle(workflowId).query<AgentState>('state');
    expect(live.continuedRuns).toBeGreaterThanOrEqual(1);
    expect(live.todo).toEqual([{ id: 't', content: `step ${turns - 2}`, status: 'in_progress' }]);
  });
  await model.close();
});

it('attach asks about a pending approval and sends the answer', async () => {
  const dir = cwd();
  const marker = join(dir, 'ran.txt');
  const model = await startScriptedModel([
    {
      toolCalls: [
        { name: 'terminal', arguments: { command: `kubectl delete pod x 2>/dev/null; echo ran >> ${marker}` } },
      ],
    },
    { content: 'approved at attach' },
  ]);
  const env = { TEMPORAL_ADDRESS: h.address, TETHER_TASK_QUEUE: h.taskQueue };
  await h.withWorker(model.url, async () => {
    const workflowId = `follow-${randomUUID()}`;
    await h.client.workflow.start('agentWorkflow', {
      taskQueue: h.taskQueue,
      workflowId,
      args: [{ task: 't', model: 'scripted', cwd: dir }],
    });
    const a = attach(workflowId, ['--prompt'], env);
    await until('the prompt', () => a.err().includes('[o]nce / [s]ession / [a]lways / [d]eny'));
    expect(a.err()).toContain('[kubectl-delete]');
    a.child.stdin.write('o\n');
    expect(await a.exited).toBe(0);
    expect(a.out()).toBe('approved at attach\n');
    expect(a.err()).toContain('approved (once)');
  });
  expect(existsSync(marker) && readFileSync(marker, 'utf8')).toBe('ran\n');
  await model.close();
});
