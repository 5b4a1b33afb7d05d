// Benchmark (not a test): registry dispatch overhead, getToolDefinitions time, cold start. Run: npm run bench:registry
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { discoverBuiltinTools } from '../src/registry/discover.js';
import { registry } from '../src/registry/index.js';
import { ToolRegistry } from '../src/registry/registry.js';
import { getToolDefinitions } from '../src/toolsets/resolve.js';
import { fmt, machine, silent, summary } from './stats.js';

const ctx = { taskId: 'bench', cwd: process.cwd() };

async function dispatchOverhead(): Promise<void> {
  const reg = new ToolRegistry(silent);
  reg.register({
    name: 'noop',
    toolset: 'bench',
    description: 'does nothing',
    schema: z.object({}),
    handler: () => '{}',
  });
  for (let i = 0; i < 20_000; i += 1) await reg.dispatch('noop', '{}', ctx);
  const samples: number[] = [];
  for (let i = 0; i < 100_000; i += 1) {
    const t0 = process.hrtime.bigint();
    await reg.dispatch('noop', '{}', ctx);
    samples.push(Number(process.hrtime.bigint() - t0) / 1_000);
  }
  const s = summary(samples);
  console.log(`dispatch overhead, no-op tool (${s.n} calls): median ${fmt(s.median)} µs, p99 ${fmt(s.p99)} µs`);
}

async function definitionsTime(): Promise<void> {
  await discoverBuiltinTools(undefined, silent);
  const count = getToolDefinitions({ quiet: true }, registry, silent).length;
  const samples: number[] = [];
  for (let i = 0; i < 2_000; i += 1) {
    const t0 = process.hrtime.bigint();
    getToolDefinitions({ quiet: true }, registry, silent);
    samples.push(Number(process.hrtime.bigint() - t0) / 1_000);
  }
  const s = summary(samples);
  console.log(
    `getToolDefinitions, all ${count} tools (${s.n} calls): median ${fmt(s.median)} µs, p99 ${fmt(s.p99)} µs`,
  );
}

function coldStart(): void {
  // The compiled output, as `tether` runs it: process start → discovery → first definitions.
  const dist = fileURLToPath(new URL('../dist/', import.meta.url));
  const script = `
    const { discoverBuiltinTools } = await import('${dist}registry/discover.js');
    const { getToolDefinitions } = await import('${dist}toolsets/resolve.js');
    await discoverBuiltinTools();
    const defs = getToolDefinitions({ quiet: true });
    process.stdout.write(JSON.stringify({ ms: performance.now(), tools: defs.length }));`;
  const samples: number[] = [];
  for (let i = 0; i < 10; i += 1) {
    const out = execFileSync('node', ['--input-type=module', '-e', script], { encoding: 'utf8' });
    samples.push((JSON.parse(out) as { ms: number }).ms);
  }
  const s = summary(samples);
  console.log(
    `cold start to first definitions, compiled (${s.n} processes): median ${fmt(s.median, 1)} ms, p99 ${fmt(s.p99, 1)} ms`,
  );
}

console.log(`bench:registry on ${machine()}`);
await dispatchOverhead();
await definitionsTime();
coldStart();
