// Benchmark (not a test): what holding protected files read-only costs per command on the local sandbox, on a
// 400-directory tree with five repositories (each with a workflow, AGENTS.md, editor tasks and code owners). Per
// command the sandbox looks at the machine once (its view, which decides whether the task's shell is made anew; the
// guard's look before the command uses it), and the guard looks at the protected paths again after the command; the
// repository search is the git protection's, paid with or without this. Printed: those steps with the defaults and
// with an empty list, and a trivial command through the whole environment both ways.
// Run: npm run bench:environments (the part after the egress proxy's)
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
  for (let i = 0; i < ROUNDS; i += 1) {
    // What a command costs the sandbox: its view (before the shell is chosen), and with protection the guard's two looks.
    without.push(await time(() => sandboxView(off, root)));
    withIt.push(
      await time(() => {
        const state = sandboxState(on, root);
        guard.commandStarting(state);
        sandboxView(on, root, state);
        guard.commandEnded();
      }),
    );
  }
  const a = summary(withIt);
  const b = summary(without);
  console.log(
    `protected files (${DIRS} directories, ${REPOS} repositories, ${found} protected paths found), per command (${ROUNDS}): ` +
      `view + two looks ${fmt(a.median, 3)} ms (p99 ${fmt(a.p99, 3)}) vs view without them ${fmt(b.median, 3)} ms (p99 ${fmt(b.p99, 3)}): ` +
      `protection ${fmt(a.median - b.median, 3)} ms (target <= 1 ms)`,
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
