// A run of 1,000 turns completes through several continue-as-new transitions and compactions, and no single run's
// history passes 10,000 events or 10 MB.
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { AgentResult, AgentState } from '../src/common/types.js';
import { harness, type Harness } from './support/agent-harness.js';
import { until } from './support/cli.js';
import { longRunScript, runHistories } from './support/long-run.js';
import { startScriptedModel } from './support/scripted-model.js';

let h: Harness;
beforeAll(async () => {
  h = await harness();
});
afterAll(() => h.close());

it('runs 1,000 turns with continue-as-new, every history bounded', async () => {
  const turns = 1_000;
  const { steps, summariser } = longRunScript(turns);
  const model = await startScriptedModel(steps, { summariser });
  const workflowId = `long-${randomUUID()}`;
  await h.withWorker(model.url, async () => {
    const handle = await h.client.workflow.start('agentWorkflow', {
      taskQueue: h.taskQueue,
      workflowId,
      args: [
        {
          task: 'count to a thousand',
          model: 'scripted',
          cwd: realpathSync(mkdtempSync(join(tmpdir(), 'tether-long-'))),
          limits: { maxTurns: 1_200, continueAsNewAfterEvents: 2_000 },
          compaction: { thresholdChars: 6_000, keepRecentMessages: 6, model: 'summariser' },
        },
      ],
    });
    const result = (await handle.result()) as AgentResult;
    expect(result).toMatchObject({
      status: 'completed',
      answer: `done after ${turns} turns`,
      turns,
      toolCalls: turns - 1,
    });
    const s = await handle.query<AgentState>('state');
    expect(s.continuedRuns).toBeGreaterThanOrEqual(3);
    expect(s.compactions).toBeGreaterThan(10);
    let runs: Awaited<ReturnType<typeof runHistories>> = [];
    await until(
      'every run listed',
      async () => (runs = await runHistories(h.client, workflowId)).length === s.continuedRuns + 1,
    );
    for (const r of runs) {
      expect(r.events).toBeLessThan(10_000);
      expect(r.bytes).toBeLessThan(10 * 1024 * 1024);
    }
  });
  expect(model.errors).toEqual([]);
  await model.close();
}, 600_000);
