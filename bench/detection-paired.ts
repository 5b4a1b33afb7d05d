// Benchmark (not a test): detection in this checkout against another checkout of tether (a git worktree at an
// earlier commit), in one process, each command timed in both, one right after the other, so the host's load and
// frequency fall on both alike. Run: git worktree add --detach /tmp/base <rev> && ln -s "$PWD/node_modules"
// /tmp/base/node_modules && npm run bench:detection-paired -- /tmp/base
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { detectionCommands } from './detection-commands.js';
import { fmt, machine, summary } from './stats.js';

type Detect = (command: string, cwd: string) => unknown;

async function detector(root: string): Promise<Detect> {
  const { detect } = (await import(
    resolve(root, 'src/detector/engine/detect.ts')
  )) as typeof import('../src/detector/engine/detect.js');
  const { loadBashParser } = (await import(
    resolve(root, 'src/detector/engine/parser.ts')
  )) as typeof import('../src/detector/engine/parser.js');
  const parse = await loadBashParser();
  return (command, cwd) => detect(parse, command, { cwd });
}

const base = process.argv[2];
if (!base || !existsSync(resolve(base, 'src/detector/engine/detect.ts'))) {
  process.stderr.write('usage: npm run bench:detection-paired -- <another checkout of tether with node_modules>\n');
  process.exit(2);
}
const [before, now] = [await detector(base), await detector('.')];
const commands = detectionCommands();
const [timesBefore, timesNow]: [number[], number[]] = [[], []];
const timed = (run: Detect, command: string, cwd: string, into: number[]): void => {
  const t0 = performance.now();
  run(command, cwd);
  into.push((performance.now() - t0) * 1000);
};
// Whichever tree runs second in a pair runs faster (measured: this checkout against itself, 0.89), so the order
// alternates from round to round.
for (let round = 0; round < 10; round += 1)
  for (const [command, cwd] of commands) {
    const pair: [Detect, number[]][] = [
      [before, timesBefore],
      [now, timesNow],
    ];
    for (const [run, into] of round % 2 === 0 ? pair : pair.reverse()) timed(run, command, cwd, into);
  }
const [b, n] = [summary(timesBefore), summary(timesNow)];
process.stdout.write(
  `detection, ${commands.length} table and corpus commands × 10 rounds, interleaved · ${machine()}\n` +
    `${base}: ${fmt(b.median, 0)} µs median, ${fmt(b.p99, 0)} µs p99\n` +
    `this checkout: ${fmt(n.median, 0)} µs median, ${fmt(n.p99, 0)} µs p99 (median ratio ${fmt(n.median / b.median)})\n`,
);
