// The `tether` command end to end: run (embedded worker), detach, worker, status, attach, list, cancel.
import { execFile } from 'node:child_process';
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runCli, until } from './support/cli.js';
import { startScriptedModel, type ScriptedModel } from './support/scripted-model.js';
import { startWorkerProcess, type WorkerProcess } from './support/worker-process.js';

let model: ScriptedModel;
let env: Record<string, string>;
const workers: WorkerProcess[] = [];
const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-cli-run-')));

const tether = (args: string[], extraEnv: Record<string, string> = {}) =>
  runCli(args, { cwd, env: { ...env, ...extraEnv } });

beforeAll(async () => {
  model = await startScriptedModel([
    (req) =>
      req.messages.some((m) => m.content?.includes('long task'))
        ? { toolCalls: [{ name: 'terminal', arguments: { command: 'sleep 120' } }] }
        : { toolCalls: [{ name: 'terminal', arguments: { command: 'echo hi from the agent' } }] },
    { content: 'The command printed a greeting.' },
  ]);
  env = {
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TETHER_TASK_QUEUE: `cli-${randomUUID()}`,
    OPENAI_BASE_URL: model.url,
    OPENAI_API_KEY: 'test-key',
    TETHER_HOME: mkdtempSync(join(tmpdir(), 'tether-cli-home-')),
  };
});
afterAll(async () => {
  for (const w of workers) await w.kill('SIGTERM');
  await model.close();
});

describe('tether run', () => {
  it('runs an agent with an embedded worker and prints one JSON object', async () => {
    const r = await tether(['run', '--json', 'say hi']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(out).toMatchObject({
      status: 'completed',
      answer: 'The command printed a greeting.',
      turns: 2,
      toolCalls: 1,
    });
    expect(String(out.workflowId)).toMatch(/^tether-/);
  });

  it('shows each tool call with its emoji and the answer on stdout', async () => {
    const r = await tether(['run', 'say hi']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('💻 terminal  echo hi from the agent');
    expect(r.stdout).toBe('The command printed a greeting.\n');
  });

  it('refuses bad options before starting anything', async () => {
    expect((await tether(['run', '--toolsets', 'nope', 'x'])).stderr).toContain("unknown toolset 'nope'");
    expect((await tether(['run', '--max-turns', 'zero', 'x'])).code).toBe(2);
    const badUrl = await tether(['run', 'x'], { OPENAI_BASE_URL: 'not a url' });
    expect(badUrl.code).toBe(2);
    expect(badUrl.stderr).toContain('OPENAI_BASE_URL');
  });
});

describe('detached runs and a separate worker', () => {
  it('detaches, then status, attach and list follow the run that a worker completes', async () => {
    const detached = await tether(['run', '--detach', 'say hi']);
    expect(detached.code).toBe(0);
    const id = detached.stdout.trim();
    expect(id).toMatch(/^tether-/);
    workers.push(await startWorkerProcess(env));
    const attached = await tether(['attach', id]);
    expect(attached.code).toBe(0);
    expect(attached.stdout).toBe('The command printed a greeting.\n');
    const status = JSON.parse((await tether(['status', id, '--json'])).stdout) as Record<string, unknown>;
    expect(status).toMatchObject({ workflowId: id, status: 'completed', turns: 2, toolCalls: 1 });
    // Visibility (what list reads) is eventually consistent: wait for the run to show.
    await until('the run in tether list', async () =>
      (JSON.parse((await tether(['list', '--json'])).stdout) as { workflowId: string }[]).some(
        (r) => r.workflowId === id,
      ),
    );
  });

  it('lists runs newest start first, with the tokens a running run has used so far; cancel says what it stopped', async () => {
    const older = (await tether(['run', '--detach', 'a long task'])).stdout.trim();
    const newer = (await tether(['run', '--detach', 'a long task'])).stdout.trim();
    type Row = { workflowId: string; startTime: string; tokens?: { inputTokens: number; outputTokens: number } };
    let mine: Row[] = [];
    await until('both runs running their command, in the listing with tokens', async () => {
      const rows = JSON.parse((await tether(['list', '--json', '--limit', '200'])).stdout) as Row[];
      mine = rows.filter((r) => r.workflowId === older || r.workflowId === newer);
      return mine.length === 2 && mine.every((r) => (r.tokens?.inputTokens ?? 0) > 0);
    });
    // The running runs' tokens come from the runs themselves (the memo's are as of their last status change: 0).
    expect(mine.map((r) => r.workflowId)).toEqual([newer, older]);
    expect(mine[0]!.tokens).toEqual({ inputTokens: 10, outputTokens: 5 });
    for (const id of [older, newer]) {
      const cancel = await tether(['cancel', id]);
      expect(cancel.code).toBe(0);
      expect(cancel.stdout).toMatch(
        new RegExp(`^${id} cancelled: 1 tool call stopped\n  stopped: terminal: sleep 120`),
      );
      expect(cancel.stdout).not.toMatch(/[{}]"/);
    }
  });

  it('cancels a running run and stops its command', async () => {
    const id = (await tether(['run', '--detach', 'a long task'])).stdout.trim();
    let state: Record<string, unknown> = {};
    for (let i = 0; i < 100 && !(state.currentToolCalls as unknown[] | undefined)?.length; i += 1) {
      state = JSON.parse((await tether(['status', id, '--json'])).stdout) as Record<string, unknown>;
    }
    expect(state).toMatchObject({ status: 'running', currentToolCalls: [{ name: 'terminal', summary: 'sleep 120' }] });
    expect((await tether(['cancel', id])).code).toBe(0);
    const after = JSON.parse((await tether(['status', id, '--json'])).stdout) as Record<string, unknown>;
    expect(after.status).toBe('cancelled');
    // The cancellation reaches the activity with its next heartbeat, and the command's process group is killed.
    await until(
      'the cancelled command to be gone',
      async () =>
        (await new Promise<string>((res) => execFile('pgrep', ['-f', '^sleep 120$'], (_e, out) => res(out)))).trim() ===
        '',
      20_000,
    );
  });

  it('reports an unknown run id with a non-zero exit code', async () => {
    const r = await tether(['status', 'no-such-run']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no such run');
  });
});
