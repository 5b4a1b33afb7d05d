// Usage per run as a user sees it: tokens in and out, and the cost when config.yaml prices the model, in `tether
// status`, `tether list --json`, the inbox's run data and `tether batch` result lines; a model without a price shows
// tokens only, and a broken price is one line naming the setting.
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { recentRuns, runDetail } from '../src/inbox/data.js';
import { runCli } from './support/cli.js';
import { startScriptedModel } from './support/scripted-model.js';
import { workerEnv, workerProcessSuite } from './support/worker-process.js';

describe('usage per run', () => {
  const suite = workerProcessSuite();

  it('status, list --json, the inbox and batch results show tokens in/out and the cost of a priced model', async () => {
    // Every run: one call with a tool, then the answer; 1,000 + 2,000 tokens in, 100 + 20 out.
    const model = await startScriptedModel([
      { toolCalls: [{ name: 'todo', arguments: { todos: [] } }], usage: { prompt: 1000, completion: 100 } },
      { content: 'done', usage: { prompt: 2000, completion: 20 } },
    ]);
    suite.models.push(model);
    const { env } = workerEnv(inject('temporalAddress'), model.url, 'usage');
    // $3 per million tokens in, $15 out: 3,000 in and 120 out cost $0.009 + $0.0018.
    writeFileSync(
      join(env.TETHER_HOME!, 'config.yaml'),
      'observability:\n  prices:\n    priced-model: { input: 3, output: 15 }\n',
    );
    await suite.workers.start(env);
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-usage-')));
    const priced = { inputTokens: 3000, outputTokens: 120, costUsd: 0.0108 };
    const unpriced = { inputTokens: 3000, outputTokens: 120 };

    const run = async (modelName: string): Promise<string> => {
      const r = await runCli(['run', '--json', '--no-worker', '--model', modelName, 'plan nothing'], { cwd, env });
      const out = JSON.parse(r.stdout) as { workflowId: string; status: string };
      expect(out.status).toBe('completed');
      return out.workflowId;
    };
    const pricedRun = await run('priced-model');
    const plainRun = await run('unpriced-model');

    const status = await runCli(['status', pricedRun], { cwd, env });
    expect(status.stdout).toContain('usage: 3000 in / 120 out tokens · $0.0108');
    const statusJson = JSON.parse((await runCli(['status', '--json', pricedRun], { cwd, env })).stdout) as {
      tokens: unknown;
    };
    expect(statusJson.tokens).toEqual(priced);
    const plainStatus = JSON.parse((await runCli(['status', '--json', plainRun], { cwd, env })).stdout) as {
      tokens: unknown;
    };
    expect(plainStatus.tokens).toEqual(unpriced);

    const list = JSON.parse((await runCli(['list', '--json', '--limit', '50'], { cwd, env })).stdout) as {
      workflowId: string;
      tokens?: unknown;
    }[];
    expect(list.find((r) => r.workflowId === pricedRun)?.tokens).toEqual(priced);
    expect(list.find((r) => r.workflowId === plainRun)?.tokens).toEqual(unpriced);
    const listText = await runCli(['list'], { cwd, env });
    expect(listText.stdout).toMatch(new RegExp(`${pricedRun}.*3000 in / 120 out tokens · \\$0\\.0108`));

    // The inbox reads the worker's TETHER_HOME config (it runs beside the worker).
    process.env.TETHER_HOME = env.TETHER_HOME;
    const recent = await recentRuns(suite.client(), 50);
    expect(recent.find((r) => r.workflowId === pricedRun)?.tokens).toEqual(priced);
    expect((await runDetail(suite.client(), pricedRun)).tokens).toEqual(priced);

    const batch = join(cwd, 'tasks.jsonl');
    writeFileSync(batch, `${JSON.stringify({ task: 'plan nothing', model: 'priced-model' })}\n"plan nothing again"\n`);
    const b = await runCli(['batch', batch, '--no-worker', '--model', 'unpriced-model'], { cwd, env });
    const lines = b.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { line: number; tokens: unknown });
    expect(lines.sort((x, y) => x.line - y.line).map((l) => l.tokens)).toEqual([priced, unpriced]);
  }, 300_000);

  it('a price that is not a number is one line naming the setting', async () => {
    const model = await startScriptedModel([]);
    suite.models.push(model);
    const { env } = workerEnv(inject('temporalAddress'), model.url, 'usage-bad');
    writeFileSync(join(env.TETHER_HOME!, 'config.yaml'), 'observability:\n  prices:\n    m: { input: cheap }\n');
    const r = await runCli(['worker'], { cwd: tmpdir(), env });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/observability\.prices\.m\.input: .*number/);
    // A command that only looks still lists, without the cost, and says why in one line.
    const list = await runCli(['list', '--json'], { cwd: tmpdir(), env });
    expect(list.code).toBe(0);
    expect(list.stderr).toMatch(/^tether: warning: no cost shown: .*observability\.prices\.m/m);
  }, 120_000);
});
