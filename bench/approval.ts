// Benchmark (not a test): dangerous-command detection per command, and the time from a decision to the approved
// command starting, on a local dev server with a real worker. Run: npm run bench:approval
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { detect } from '../src/approval/detect.js';
import { DANGEROUS, ORDINARY, TABLE_CWD } from '../test/fixtures/detect-table.js';
import { CORPUS_CWD, loadCorpus } from '../test/support/detector-corpus.js';
import { loadBashParser } from '../src/approval/parser.js';
import type { AgentState } from '../src/common/types.js';
import { startScriptedModel, type ChatRequest, type ScriptedReply } from '../test/support/scripted-model.js';
import { durableEnv } from './durable-env.js';
import { fmt, machine, summary } from './stats.js';

// 1. Detection: every command of the verdict table and of the evaluation corpus, 20 rounds, each timed on its own.
const parse = await loadBashParser();
const commands: [string, string][] = [...DANGEROUS.map((d): [string, string] => [d[0], TABLE_CWD]), ...ORDINARY.map((c): [string, string] => [c, TABLE_CWD]), ...loadCorpus().map((e): [string, string] => [e.command, CORPUS_CWD])];
const perCommand: number[] = [];
const byCommand: number[][] = commands.map(() => []);
for (let round = 0; round < 20; round += 1) {
  commands.forEach(([c, cwd], i) => {
    const t0 = performance.now();
    detect(parse, c, { cwd });
    const t = performance.now() - t0;
    perCommand.push(t);
    byCommand[i]!.push(t);
  });
}
const d = summary(perCommand);
// Each command's own median over the rounds: what the detector costs for it, without the moments the process was
// descheduled (on a shared, loaded machine those dominate the p99 of single samples).
const own = summary(byCommand.map((t) => summary(t).median));
const detectionLine = `detection: ${fmt(d.median * 1000, 0)} µs median, ${fmt(d.p99 * 1000, 0)} µs p99 of single timings; per-command medians: ${fmt(own.median * 1000, 0)} µs median, ${fmt(own.p99 * 1000, 0)} µs p99, ${fmt(Math.max(...byCommand.map((t) => summary(t).median)) * 1000, 0)} µs slowest (${commands.length} table and corpus commands × 20 rounds, n=${d.n})`;
if (process.argv.includes('--detection-only')) {
  process.stdout.write(`${detectionLine} · ${machine()} · load ${loadavg()[0]!.toFixed(1)}\n`);
  process.exit(0);
}

// 2. Decision to command start: runs whose only tool call asks; the command's first act records the time.
const env = await durableEnv();
const taskQueue = `bench-approval-${randomUUID()}`;
const runs = 30;
const dir = mkdtempSync(join(tmpdir(), 'tether-bench-approval-'));
// The run's task names its number; the command writes its start time (ns) to a file of that number.
const ask = (req: ChatRequest): ScriptedReply => {
  const i = /run (\d+)/.exec(String(req.messages[1]?.content))?.[1];
  return { toolCalls: [{ name: 'terminal', arguments: { command: `date +%s%N > ${join(dir, `start-${i}`)}; kubectl delete pod bench 2>/dev/null; true` } }] };
};
const latencies: number[] = [];
const model = await startScriptedModel([ask, { content: 'done' }]);
const worker = await env.worker(taskQueue, model.url);
await worker.runUntil(async () => {
  for (let i = 0; i < runs; i += 1) {
    const handle = await env.client.workflow.start('agentWorkflow', { taskQueue, workflowId: `bench-${randomUUID()}`, args: [{ task: `run ${i}`, model: 'scripted', cwd: dir }] });
    let pending: AgentState['pendingApprovals'] = [];
    while (pending.length === 0) {
      pending = (await handle.query<AgentState>('state')).pendingApprovals;
      if (pending.length === 0) await new Promise((r) => setTimeout(r, 20));
    }
    const decidedAt = Date.now();
    await handle.executeUpdate('decideApproval', { args: [{ approvalId: pending[0]!.approvalId, choice: 'once' }] });
    await handle.result();
    const file = join(dir, `start-${i}`);
    if (!existsSync(file)) throw new Error(`run ${i}: the command never started`);
    latencies.push(Number(BigInt(readFileSync(file, 'utf8').trim()) / 1_000_000n) - decidedAt);
  }
});
await model.close();
await env.close();
const l = summary(latencies);

process.stdout.write(
  [
    `approval benchmark · ${machine()}`,
    detectionLine,
    `decision → command start: ${fmt(l.median, 1)} ms median, ${fmt(l.p99, 1)} ms p99 (n=${l.n}; decideApproval update to the command's first act, worker and dev server on this machine)`,
    'reproduce: npm run bench:approval',
  ].join('\n') + '\n',
);
