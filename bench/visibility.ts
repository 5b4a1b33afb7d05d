// Benchmark (not a test): listing runs that wait for a person, from visibility, with and without a worker, against
// the old per-run state query, for N = 100 and 1 000 waiting runs. Run: npm run bench:visibility [-- 100 1000]
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { listPendingApprovals } from '../src/visibility/pending-approvals.js';
import { queryRunState } from '../src/temporal/run-handle.js';
import { listRunPage } from '../src/visibility/list-runs.js';
import { startScriptedModel } from '../test/support/scripted-model.js';
import { durableEnv } from './durable-env.js';
import { fmt, machine, summary } from './stats.js';

const sizes = process.argv
  .slice(2)
  .map(Number)
  .filter((n) => Number.isInteger(n) && n > 0);
const counts = sizes.length > 0 ? sizes : [100, 1000];
const ROUNDS = 5;

/** The listing before visibility: every running run asked for its state in turn, 3 s each at most. */
async function perRunQueryListing(
  client: Client,
  limit = Infinity,
): Promise<{ approvals: number; unanswered: number }> {
  let approvals = 0;
  let unanswered = 0;
  let seen = 0;
  for await (const w of client.workflow.list({
    query: "WorkflowType = 'agentWorkflow' AND ExecutionStatus = 'Running'",
  })) {
    if (seen++ >= limit) break;
    const state = await queryRunState(client, client.workflow.getHandle(w.workflowId), 3_000);
    if (!state) unanswered += 1;
    approvals += state?.pendingApprovals.length ?? 0;
  }
  return { approvals, unanswered };
}

async function timed<T>(fn: () => Promise<T>, rounds = ROUNDS): Promise<{ ms: number[]; last: T }> {
  const ms: number[] = [];
  let last: T | undefined;
  for (let i = 0; i < rounds; i += 1) {
    const t0 = performance.now();
    last = await fn();
    ms.push(performance.now() - t0);
  }
  return { ms, last: last as T };
}

const med = (ms: number[]): string => `${fmt(summary(ms).median / 1000, 2)} s median (${ms.length} rounds)`;

const env = await durableEnv();
const model = await startScriptedModel([
  { toolCalls: [{ name: 'terminal', arguments: { command: 'kubectl delete pod bench 2>/dev/null' } }] },
  { content: 'done' },
]);
const cwd = mkdtempSync(join(tmpdir(), 'tether-bench-visibility-'));
const lines: string[] = [];
try {
  for (const n of counts) {
    const taskQueue = `bench-visibility-${randomUUID()}`;
    const batchId = `bench-${n}-${randomUUID().slice(0, 8)}`;
    const worker = await env.worker(taskQueue, model.url);
    const ids = Array.from({ length: n }, (_, i) => `${batchId}-${i}`);
    const waitingQuery = `TetherBatch = '${batchId}' AND TetherStatus = 'waiting-approval'`;
    const stopWorker = new AbortController();
    const running = worker.runUntil(
      new Promise<void>((resolve) => stopWorker.signal.addEventListener('abort', () => resolve())),
    );
    // Starting is not what is measured: runs start 50 at a time, then the clock waits for all to wait.
    const t0 = performance.now();
    for (let i = 0; i < n; i += 50)
      await Promise.all(
        ids.slice(i, i + 50).map((workflowId) =>
          env.client.workflow.start('agentWorkflow', {
            taskQueue,
            workflowId,
            args: [{ task: 'wait for approval', model: 'scripted', cwd, batchId }],
          }),
        ),
      );
    while ((await env.client.workflow.count(waitingQuery)).count < n) await new Promise((r) => setTimeout(r, 500));
    process.stderr.write(`${n} runs waiting for approval after ${fmt((performance.now() - t0) / 1000, 1)} s\n`);

    const withWorker = await timed(() => listPendingApprovals(env.client));
    const page = await timed(() => listRunPage(env.client, { status: 'waiting-approval', pageSize: 1000 }));
    lines.push(
      `N=${n}, worker running: tether approvals ${med(withWorker.ms)}, ${withWorker.last.approvals.length} approvals listed; ` +
        `tether list --status waiting-approval --limit 1000 ${med(page.ms)}, ${page.last.runs.length} runs`,
    );
    if (n <= 100) {
      const old = await timed(() => perRunQueryListing(env.client), 1);
      lines.push(
        `N=${n}, worker running, old per-run query listing: ${fmt(old.ms[0]! / 1000, 2)} s, ${old.last.approvals} approvals`,
      );
    }
    stopWorker.abort();
    await running;
    const without = await timed(() => listPendingApprovals(env.client));
    lines.push(
      `N=${n}, no worker: tether approvals ${med(without.ms)}, ${without.last.approvals.length} approvals listed, ${without.last.unanswered.length} unanswered`,
    );
    if (n <= 100) {
      // Each query waits its full 3 s for a worker that is not there: ten runs show the rate.
      const old = await timed(() => perRunQueryListing(env.client, 10), 1);
      lines.push(
        `N=${n}, no worker, old per-run query listing: ${fmt(old.ms[0]! / 1000, 1)} s for the first 10 runs (${old.last.unanswered} unanswered), so about ${fmt(((old.ms[0]! / 10) * n) / 1000, 0)} s for all ${n}`,
      );
    }
    for (let i = 0; i < n; i += 100)
      await Promise.all(
        ids.slice(i, i + 100).map((id) => env.client.workflow.getHandle(id).terminate('benchmark done')),
      );
  }
} finally {
  await model.close();
  await env.close();
}
process.stdout.write(`${lines.join('\n')}\n${machine()} · load ${loadavg()[0]!.toFixed(1)}\n`);
