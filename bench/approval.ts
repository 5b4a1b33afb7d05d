// Benchmark (not a test): dangerous-command detection per command, and the time from a decision to the approved
// command starting, on a local dev server with a real worker. Run: npm run bench:approval
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, existsSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { readScriptsIn } from '../src/environments/read-scripts.js';
import { judgeSubject } from '../src/approval/assess.js';
import { detect } from '../src/detector/engine/detect.js';
import { parseConfig } from '../src/config/config.js';
import { configureEnvironments, environmentManager } from '../src/environments/current.js';
import { TABLE_CWD } from '../test/fixtures/detect-table.js';
import { detectionCommands } from './detection-commands.js';
import { loadBashParser } from '../src/detector/engine/parser.js';
import type { AgentState } from '../src/common/types.js';
import { startScriptedModel, type ChatRequest, type ScriptedReply } from '../test/support/scripted-model.js';
import { durableEnv } from './durable-env.js';
import { fmt, machine, summary } from './stats.js';

// 1. Detection: every command of the verdict table and of the evaluation corpus, 20 rounds, each timed on its own.
const parse = await loadBashParser();
const commands = detectionCommands();
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

// 1b. The gate's extra cost per channel: judging stdin, a script run by path (read through a real local
// environment, as the gate activity does) and execute_code programs, against the bare command.
const timeIt = async (fn: () => unknown, rounds = 200): Promise<ReturnType<typeof summary>> => {
  const times: number[] = [];
  for (let i = 0; i < rounds; i += 1) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  return summary(times);
};
const script = Array.from({ length: 20 }, (_, i) => `echo step ${i} && mkdir -p out/${i} && cp -r src out/${i}/`).join(
  '\n',
);
const python = [
  'import json, subprocess, os',
  'def build(n):',
  "    subprocess.run(['make', f'-j{n}'], check=True)",
  ...Array.from({ length: 36 }, (_, i) => `x${i} = [k * ${i} for k in range(10)]`),
  "print(json.dumps(os.listdir('.')))",
].join('\n');
const javascript = [
  "import { execFileSync } from 'node:child_process';",
  "import fs from 'node:fs';",
  ...Array.from({ length: 36 }, (_, i) => `const x${i} = [1, 2, 3].map((k) => k * ${i});`),
  "console.log(execFileSync('git', ['status']).toString(), fs.readdirSync('.'));",
].join('\n');
await judgeSubject({ text: 'true' }, TABLE_CWD); // grammars loaded
const bare = await timeIt(() => judgeSubject({ text: 'sh' }, TABLE_CWD));
const withStdin = await timeIt(() => judgeSubject({ text: 'sh', stdin: script }, TABLE_CWD));
const py = await timeIt(() => judgeSubject({ text: python, language: 'python' }, TABLE_CWD));
const js = await timeIt(() => judgeSubject({ text: javascript, language: 'javascript' }, TABLE_CWD));
const scriptDir = mkdtempSync(join(tmpdir(), 'tether-bench-gate-'));
writeFileSync(join(scriptDir, 'build.sh'), `${script}\n`);
await configureEnvironments(parseConfig({ terminal: { backend: 'local' } }).terminal);
const byPath = await environmentManager().use('bench-gate', { hostCwd: scriptDir }, ({ env }) =>
  timeIt(() => judgeSubject({ text: 'sh build.sh' }, scriptDir, (keys) => readScriptsIn(env, keys)), 50),
);
// Imports of a 20-module Python project (main imports 4 packages of 4 modules each, each module two stdlib modules),
// read through the local environment as the gate does (one batched read per round of imports), then judged.
const importDir = mkdtempSync(join(tmpdir(), 'tether-bench-imports-'));
const packages = ['core', 'io', 'net', 'util'];
writeFileSync(join(importDir, 'main.py'), `${packages.map((p) => `import ${p}`).join('\n')}\nprint('ok')\n`);
for (const p of packages) {
  mkdirSync(join(importDir, p));
  writeFileSync(
    join(importDir, p, '__init__.py'),
    Array.from({ length: 4 }, (_, i) => `from . import m${i}`).join('\n'),
  );
  for (let i = 0; i < 4; i += 1)
    writeFileSync(
      join(importDir, p, `m${i}.py`),
      `import json, os\n\ndef f${i}(x):\n    return json.dumps(os.path.join('a', x))\n`,
    );
}
const imports = await environmentManager().use('bench-imports', { hostCwd: importDir }, async ({ env }) => {
  const read = (keys: string[]) => readScriptsIn(env, keys);
  const first = await judgeSubject({ text: 'python3 main.py' }, importDir, read);
  if (first.verdict.dangerous || first.scripts.size !== 21)
    throw new Error(
      `imports bench: expected 21 files judged ok, got ${first.scripts.size} (${first.verdict.findings.map((f) => f.rule).join(', ')})`,
    );
  return timeIt(() => judgeSubject({ text: 'python3 main.py' }, importDir, read), 50);
});
await environmentManager().closeAll();
const ms = (s: ReturnType<typeof summary>): string => `${fmt(s.median, 2)} ms median, ${fmt(s.p99, 2)} ms p99`;
if (process.argv.includes('--gate-only')) {
  process.stdout.write(
    [
      `approval benchmark (gate only) · ${machine()} · load ${loadavg()[0]!.toFixed(1)}`,
      detectionLine,
      `script by path: \`sh build.sh\` read through the local environment and judged ${ms(byPath)} (n=${byPath.n})`,
      `imports: \`python3 main.py\` of a 20-module project read through the local environment and judged ${ms(imports)} (n=${imports.n})`,
      'reproduce: npm run bench:approval -- --gate-only',
    ].join('\n') + '\n',
  );
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
  return {
    toolCalls: [
      {
        name: 'terminal',
        arguments: { command: `date +%s%N > ${join(dir, `start-${i}`)}; kubectl delete pod bench 2>/dev/null; true` },
      },
    ],
  };
};
const latencies: number[] = [];
const model = await startScriptedModel([ask, { content: 'done' }]);
const worker = await env.worker(taskQueue, model.url);
await worker.runUntil(async () => {
  for (let i = 0; i < runs; i += 1) {
    const handle = await env.client.workflow.start('agentWorkflow', {
      taskQueue,
      workflowId: `bench-${randomUUID()}`,
      args: [{ task: `run ${i}`, model: 'scripted', cwd: dir }],
    });
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
    `gate per channel (judging in the worker, n=200 each): bare \`sh\` ${ms(bare)}; stdin (20-line script) ${ms(withStdin)}; execute_code python (40 lines) ${ms(py)}; execute_code javascript (40 lines) ${ms(js)}`,
    `script by path: \`sh build.sh\` read through the local environment and judged ${ms(byPath)} (n=${byPath.n})`,
    `imports: \`python3 main.py\` of a 20-module project read through the local environment and judged ${ms(imports)} (n=${imports.n})`,
    `decision → command start: ${fmt(l.median, 1)} ms median, ${fmt(l.p99, 1)} ms p99 (n=${l.n}; decideApproval update to the command's first act, worker and dev server on this machine)`,
    'reproduce: npm run bench:approval',
  ].join('\n') + '\n',
);
