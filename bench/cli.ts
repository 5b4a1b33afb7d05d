// Benchmark (not a test): how long `tether` takes to answer, as ratios against baselines measured in the same run
// (`node -e 0`; the Temporal Go CLI's `temporal workflow list` on the same server). Run: npm run bench:cli [-- rounds]
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findTemporalBinary } from '../src/temporal/temporal-bin.js';
import { startScriptedModel } from '../test/support/scripted-model.js';
import { durableEnv } from './durable-env.js';
import { fmt, machine, summary } from './stats.js';

const ROUNDS = Number(process.argv[2] ?? 15);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) {
  console.error(`bench:cli: rounds must be a positive whole number, got '${process.argv[2]}'`);
  process.exit(2);
}
const root = fileURLToPath(new URL('..', import.meta.url));
const cli = join(root, 'dist', 'client.js');
try {
  execFileSync('node', [cli, '--version'], { stdio: 'ignore' });
} catch {
  console.error(`bench:cli: ${cli} does not run: 'npm run build' first`);
  process.exit(1);
}

const durable = await durableEnv();
const address = durable.address;
const home = mkdtempSync(join(tmpdir(), 'tether-bench-cli-'));
const env = { ...process.env, TEMPORAL_ADDRESS: address, TETHER_HOME: home };

// Runs for `tether status` to show, made before measuring (no worker runs while the commands are timed): a completed
// one (what the lean reader answers) and a terminated one (which it leaves to the SDK client).
const model = await startScriptedModel([{ content: 'done' }]);
const worker = await durable.worker('bench-cli', model.url);
const completed = `bench-cli-done-${Date.now()}`;
await worker.runUntil(
  durable.client.workflow.execute('agentWorkflow', {
    taskQueue: 'bench-cli',
    workflowId: completed,
    args: [{ task: 'say done', model: 'scripted', cwd: tmpdir() }],
  }),
);
await model.close();
const terminated = `bench-cli-term-${Date.now()}`;
await durable.client.workflow.start('agentWorkflow', { taskQueue: 'bench-cli-none', workflowId: terminated, args: [] });
await durable.client.workflow.getHandle(terminated).terminate('bench:cli');

interface Case {
  label: string;
  cmd: string;
  args: string[];
}
const temporal = findTemporalBinary();
const tether = (label: string, ...args: string[]): Case => ({ label, cmd: 'node', args: [cli, ...args] });
const cases: Case[] = [
  { label: 'node -e 0', cmd: 'node', args: ['-e', '0'] },
  { label: 'temporal workflow list', cmd: temporal, args: ['workflow', 'list', '--address', address] },
  tether('tether --version', '--version'),
  tether('tether --help', '--help'),
  tether('tether approvals --json', 'approvals', '--json'),
  tether('tether list --json', 'list', '--json'),
  tether('tether status', 'status', completed),
  tether('tether status (terminated: SDK client)', 'status', terminated),
  { label: 'npx tether --version', cmd: 'npx', args: ['--no-install', 'tether', '--version'] },
  { label: 'npx tether approvals --json', cmd: 'npx', args: ['--no-install', 'tether', 'approvals', '--json'] },
];

// Rounds interleave the commands, so a burst of load from elsewhere touches every command alike.
const ms = new Map<string, number[]>(cases.map((c) => [c.label, []]));
for (let round = 0; round <= ROUNDS; round += 1) {
  for (const c of cases) {
    const t0 = performance.now();
    const r = spawnSync(c.cmd, c.args, { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'] });
    const took = performance.now() - t0;
    if (r.status !== 0) {
      console.error(`bench:cli: '${c.label}' failed (exit ${String(r.status)}): ${String(r.stderr).trim()}`);
      await durable.close();
      process.exit(1);
    }
    if (round > 0) ms.get(c.label)!.push(took); // round 0 warms the file cache
  }
}
await durable.close();
rmSync(home, { recursive: true, force: true });

const median = (label: string): number => summary(ms.get(label)!).median;
const node = median('node -e 0');
const goCli = median('temporal workflow list');
const load = loadavg().map((l) => fmt(l, 1));
console.log(`bench:cli on ${machine()}, load average ${load.join(' ')}, ${ROUNDS} rounds (medians)`);
console.log('');
console.log('| command | median | ratio | target |');
console.log('|---|---|---|---|');
const row = (label: string, base: number, baseName: string, target?: number): void => {
  const m = median(label);
  const ratio = m / base;
  const verdict = target === undefined ? '' : `≤ ${target}× ${baseName}${ratio <= target ? '' : ' (missed)'}`;
  console.log(`| \`${label}\` | ${fmt(m, 0)} ms | ${fmt(ratio, 2)}× ${baseName} | ${verdict} |`);
};
console.log(`| \`node -e 0\` | ${fmt(node, 0)} ms | baseline | |`);
console.log(`| \`temporal workflow list\` | ${fmt(goCli, 0)} ms | baseline | |`);
row('tether --version', node, 'node', 4);
row('tether --help', node, 'node', 4);
row('tether approvals --json', goCli, 'temporal', 6);
row('tether list --json', goCli, 'temporal', 6);
row('tether status', goCli, 'temporal', 6);
row('tether status (terminated: SDK client)', goCli, 'temporal');
row('npx tether --version', median('tether --version'), 'tether');
row('npx tether approvals --json', median('tether approvals --json'), 'tether');
console.log('');
console.log(
  `tether on PATH (npm link) runs \`node dist/client.js\`; through npx the same command took ` +
    `${fmt(median('npx tether --version') - median('tether --version'), 0)} ms more (--version) and ` +
    `${fmt(median('npx tether approvals --json') - median('tether approvals --json'), 0)} ms more (approvals).`,
);
console.log('Reproduce: npm run build && npm run bench:cli');
