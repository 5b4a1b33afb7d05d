// Ctrl-C on a long `tether batch`: it stops promptly, says how to resume, and a second Ctrl-C quits at once.
// (How long it takes is measured by hand, not asserted: tests never assert on wall-clock speed.)
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { until } from '../support/cli.js';
import { looksLikeACrash, startCli } from '../support/cli-process.js';
import { startScriptedModel, type ScriptedModel } from '../support/scripted-model.js';

let model: ScriptedModel;
beforeAll(async () => {
  // Every run's one model call takes a while, so runs are in flight when Ctrl-C comes.
  model = await startScriptedModel([{ content: 'done', delayMs: 3_000 }]);
});
afterAll(async () => model.close());

function largeBatch(): { file: string; env: Record<string, string> } {
  const home = mkdtempSync(join(tmpdir(), 'tether-interrupt-'));
  const file = join(home, 'large.jsonl');
  writeFileSync(file, Array.from({ length: 2_000 }, (_, i) => JSON.stringify(`task ${i + 1}`)).join('\n'));
  return {
    file,
    env: {
      TETHER_HOME: home,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TETHER_TASK_QUEUE: `interrupt-${randomUUID()}`,
      OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: 'k',
    },
  };
}

describe('Ctrl-C on tether batch', () => {
  it('stops and says how to resume', async () => {
    const { file, env } = largeBatch();
    const batch = startCli(['batch', file, '--concurrency', '8'], { env });
    await batch.waitFor(/[1-9]\d* running/, 'runs in flight', 120_000);
    batch.child.kill('SIGINT');
    const { code } = await batch.exited();
    expect(code).toBe(130);
    expect(batch.output()).toContain('Interrupted: started runs go on; run the same command again to resume');
    expect(looksLikeACrash(batch.output())).toBe(false);
  }, 240_000);

  it('a second Ctrl-C quits at once', async () => {
    const { file, env } = largeBatch();
    const batch = startCli(['batch', file, '--concurrency', '8'], { env });
    await batch.waitFor(/[1-9]\d* running/, 'runs in flight', 120_000);
    batch.child.kill('SIGINT');
    await batch.waitFor(/Ctrl-C again to quit at once/, 'the interrupt notice');
    batch.child.kill('SIGINT');
    expect((await batch.exited()).code).toBe(130);
  }, 240_000);
});

describe('Ctrl-C on tether run while model calls fail', () => {
  it('ends without a stray "Channel has been shut down" trace', async () => {
    const failing = await startScriptedModel([{ status: 503, error: 'overloaded, try later' }]);
    try {
      const { env } = largeBatch();
      const run = startCli(['run', 'say hello'], { env: { ...env, OPENAI_BASE_URL: failing.url } });
      await until('the model to be called (and fail) twice', () => failing.requests.length >= 2, 120_000);
      run.child.kill('SIGINT');
      await run.exited();
      expect(run.output()).not.toMatch(/Channel has been shut down/);
      expect(looksLikeACrash(run.output())).toBe(false);
    } finally {
      await failing.close();
    }
  }, 240_000);
});
