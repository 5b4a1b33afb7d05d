// Benchmark (not a test): what holding protected files read-only costs per command on the local sandbox, on a
// 400-directory tree with five repositories (each with a workflow, AGENTS.md, editor tasks and code owners). Per
// command the sandbox looks at the machine once (its view, which decides whether the task's shell is made anew; the
// guard's look before the command uses it), and the guard looks at the protected paths again after the command; the
// repository search is the git protection's, paid with or without this. Printed: those steps with the defaults and
// with an empty list, and a trivial command through the whole environment both ways.
// Run: npm run bench:environments (the part after the egress proxy's)
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_PROTECTED, resolveProtected } from '../src/common/protected-paths.js';
import { parseConfig } from '../src/config/config.js';
import { EnvironmentManager } from '../src/environments/manager.js';
import { ProtectedGuard } from '../src/environments/backends/local/protected-guard.js';
import { sandboxState, sandboxView } from '../src/environments/backends/local/sandbox.js';
import type { SandboxSpec } from '../src/environments/backends/local/settings.js';
import { fmt, silent, summary } from './stats.js';

const DIRS = 400;
const REPOS = 5;
const ROUNDS = 400;

/** 400 directories four levels deep at most, five of them repositories with the usual protected files. */
function tree(): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'tether-bench-protected-')));
  let made = 0;
  const mk = (p: string): void => {
    mkdirSync(p, { recursive: true });
    made += 1;
  };
  for (let r = 0; r < REPOS; r += 1) {
    const repo = join(root, `repo${r}`);
    mk(repo);
    for (const d of ['.git', '.git/objects', '.git/refs', '.git/hooks', '.github', '.github/workflows', '.vscode'])
      mk(join(repo, d));
    writeFileSync(join(repo, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(join(repo, '.git', 'config'), '[core]\n');
    for (const [f, text] of [
      ['.github/workflows/ci.yml', 'name: ci\n'],
      ['AGENTS.md', 'rules\n'],
      ['.vscode/tasks.json', '{}\n'],
      ['CODEOWNERS', '* @o\n'],
    ])
      writeFileSync(join(repo, f!), text!);
  }
  for (let i = 0; made < DIRS; i += 1) mk(join(root, `repo${i % REPOS}`, `src${i % 20}`, `pkg${Math.floor(i / 20)}`));
  return root;
}

async function time(fn: () => unknown): Promise<number> {
  const t0 = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

/** This process's CPU time (user and system) a synchronous step takes, in ms: on a loaded machine the wall time is mostly waiting for a core. */
function cpuTime(fn: () => unknown): number {
  const t0 = process.cpuUsage();
  fn();
  const d = process.cpuUsage(t0);
  return (d.user + d.system) / 1000;
}

/** Every default removed: the sandbox with no protected paths, as before them. */
const NONE = DEFAULT_PROTECTED.map((e) => `!${e.path}`);

export async function benchProtection(): Promise<void> {
  const root = tree();
  const spec = (list: string[]): SandboxSpec => ({
    bwrap: 'bwrap',
    network: 'host',
    nsenter: 'nsenter',
    slirp4netns: 'slirp4netns',
    writable: [],
    hidden: [],
    exposed: [],
    protected: resolveProtected(list),
  });
  const on = spec([]);
  const off = spec(NONE);
  const guard = new ProtectedGuard(on, root, 'bench');
  guard.observe(sandboxState(on, root));
  const found = sandboxState(on, root).found.length;
  const withIt: number[] = [];
  const without: number[] = [];
  // What a command costs the sandbox: its view (before the shell is chosen), and with protection the guard's two looks.
  const plain = (): unknown => sandboxView(off, root);
  const held = (): void => {
    const state = sandboxState(on, root);
    guard.commandStarting(state);
    sandboxView(on, root, state);
    guard.commandEnded();
  };
  const paired: number[] = [];
  const cpu: [number[], number[]] = [[], []];
  for (let i = 0; i < ROUNDS; i += 1) {
    cpu[0].push(cpuTime(held));
    cpu[1].push(cpuTime(plain));
    // Each round measures both, in alternating order: on a loaded machine the difference within a round is what
    // tells, the two medians alone drift with the load.
    let w: number;
    let v: number;
    if (i % 2 === 0) {
      v = await time(plain);
      w = await time(held);
    } else {
      w = await time(held);
      v = await time(plain);
    }
    withIt.push(w);
    without.push(v);
    paired.push(w - v);
  }
  const a = summary(withIt);
  const b = summary(without);
  const d = summary(paired);
  console.log(
    `protected files (${DIRS} directories, ${REPOS} repositories, ${found} protected paths found), per command (${ROUNDS}): ` +
      `view + two looks ${fmt(a.median, 3)} ms (p99 ${fmt(a.p99, 3)}) vs view without them ${fmt(b.median, 3)} ms (p99 ${fmt(b.p99, 3)}): ` +
      `protection ${fmt(d.median, 3)} ms, the median of the ${d.n} rounds' differences (target <= 1 ms)`,
  );
  const c = summary(cpu[0]);
  const e = summary(cpu[1]);
  console.log(
    `  the same in CPU time (what the load average does not inflate): ${fmt(c.median, 3)} ms vs ${fmt(e.median, 3)} ms: ` +
      `protection ${fmt(c.median - e.median, 3)} ms; load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores`,
  );
  // The same through the whole environment: a trivial command in that tree, protection on and off, alternately.
  const envs = await Promise.all(
    [[], NONE].map(async (list) => {
      const m = new EnvironmentManager({
        terminal: parseConfig({ terminal: { backend: 'local', local: { sandbox: { protected: list } } } }).terminal,
        workerId: 'bench',
        log: silent,
      });
      return m;
    }),
  );
  const samples: [number[], number[]] = [[], []];
  try {
    await envs[0]!.use('bench-protected-on', { hostCwd: root }, async ({ env: protectedEnv }) =>
      envs[1]!.use('bench-protected-off', { hostCwd: root }, async ({ env: plainEnv }) => {
        for (let i = 0; i < 10; i += 1) {
          await protectedEnv.run({ command: 'true', timeoutSeconds: 30 });
          await plainEnv.run({ command: 'true', timeoutSeconds: 30 });
        }
        for (let i = 0; i < 200; i += 1) {
          samples[0].push(await time(() => protectedEnv.run({ command: 'true', timeoutSeconds: 30 })));
          samples[1].push(await time(() => plainEnv.run({ command: 'true', timeoutSeconds: 30 })));
        }
      }),
    );
  } finally {
    for (const m of envs) await m.closeAll();
  }
  const p = summary(samples[0]);
  const q = summary(samples[1]);
  console.log(
    `  a trivial command in that tree (local+sandbox, ${p.n} each, alternating): protected ${fmt(p.median)} ms (p99 ${fmt(p.p99)}) vs ` +
      `none protected ${fmt(q.median)} ms (p99 ${fmt(q.p99)}): ${fmt(p.median - q.median, 3)} ms`,
  );
}
