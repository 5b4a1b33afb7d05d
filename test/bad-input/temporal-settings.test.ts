// What tether says when Temporal cannot be used or TETHER_HOME cannot be written: one line naming the variable, for
// every command that needs it, with no stack trace and no spinning.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { runCli, type CliResult } from '../support/cli.js';
import { looksLikeACrash } from '../support/cli-process.js';

function home(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tether-bad-temporal-'));
  writeFileSync(join(dir, 'config.yaml'), 'approvals:\n  secret: a-secret-of-enough-length\n');
  return dir;
}

/** The commands that talk to Temporal, each as a user would type it. */
function commands(cwd: string): string[][] {
  const tasks = join(cwd, 'tasks.jsonl');
  writeFileSync(tasks, '"say hello"\n');
  return [
    ['list'],
    ['status', 'some-run'],
    ['approvals'],
    ['approve', 'some-run', 'some-approval'],
    ['schedule', 'list'],
    ['run', 'say hello'],
    ['batch', tasks],
    ['worker'],
    ['serve', '--port', '0'],
  ];
}

async function everyCommand(env: Record<string, string>): Promise<[string[], CliResult][]> {
  const cwd = mkdtempSync(join(tmpdir(), 'tether-bad-temporal-cwd-'));
  const all = commands(cwd);
  // In parallel: each waits for its own connection attempt to give up.
  return Promise.all(
    all.map(
      async (args) =>
        [
          args,
          await runCli(args, { cwd, env: { TETHER_HOME: home(), OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', ...env } }),
        ] as [string[], CliResult],
    ),
  );
}

function expectOneLine(args: string[], r: CliResult, pattern: RegExp): void {
  const what = `tether ${args.join(' ')}: ${r.stderr}`;
  expect(r.code, what).not.toBe(0);
  expect(looksLikeACrash(r.stderr), what).toBe(false);
  const lines = r.stderr.split('\n').filter(Boolean);
  expect(lines, what).toHaveLength(1);
  expect(lines[0], what).toMatch(pattern);
}

describe('tether refuses, naming the variable', () => {
  it('TEMPORAL_ADDRESS that nothing answers on', async () => {
    for (const [args, r] of await everyCommand({ TEMPORAL_ADDRESS: '127.0.0.1:1' })) {
      expectOneLine(args, r, /^tether: cannot reach Temporal at 127\.0\.0\.1:1 \(TEMPORAL_ADDRESS\): /);
    }
  }, 120_000);

  it('TEMPORAL_NAMESPACE that does not exist', async () => {
    for (const [args, r] of await everyCommand({
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_NAMESPACE: 'no-such-namespace',
    })) {
      expectOneLine(args, r, /^tether: namespace 'no-such-namespace' does not exist on \S+ \(TEMPORAL_NAMESPACE\)/);
    }
  }, 120_000);

  it('TEMPORAL_ADDRESS set but empty (it no longer falls back to the local dev server)', async () => {
    for (const [args, r] of await everyCommand({ TEMPORAL_ADDRESS: '' })) {
      expectOneLine(args, r, /^tether: TEMPORAL_ADDRESS is set but empty: unset it for the default, or give a value$/);
    }
  }, 120_000);

  it('TETHER_HOME that cannot be created (under /proc): tether exec and the rest stop with one line', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'tether-bad-home-'));
    for (const args of [['exec', 'echo', 'hi'], ['list'], ['tools']]) {
      const r = await runCli(args, {
        cwd,
        env: { TETHER_HOME: '/proc/tether-cannot-be-here', TEMPORAL_ADDRESS: inject('temporalAddress') },
      });
      expectOneLine(
        args,
        r,
        /^tether: TETHER_HOME=\/proc\/tether-cannot-be-here cannot be created or written \(\w+\): set TETHER_HOME to a directory you can write to$/,
      );
    }
  }, 120_000);
});
