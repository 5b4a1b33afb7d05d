// `tether cluster setup` against a second real dev server started without tether's search attributes: commands
// that need them say so in one line naming the fix, setup registers them and says what it did, a second call has
// nothing to do; a namespace that does not exist is one line naming TEMPORAL_NAMESPACE.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startDevServer } from '../src/temporal/dev-server.js';
import { runCli, until, type CliResult } from './support/cli.js';
import { looksLikeACrash } from './support/cli-process.js';

let server: Awaited<ReturnType<typeof startDevServer>>;
beforeAll(async () => {
  server = await startDevServer({ port: await freePort(), headless: true, searchAttributes: false });
});
afterAll(async () => {
  await server?.stop();
});

function tether(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const home = mkdtempSync(join(tmpdir(), 'tether-cluster-setup-'));
  return runCli(args, {
    cwd: home,
    env: { TEMPORAL_ADDRESS: server.address, TETHER_HOME: home, OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', ...env },
  });
}

function oneLine(r: CliResult, pattern: RegExp): void {
  expect(r.code, r.stderr).not.toBe(0);
  expect(looksLikeACrash(r.stderr), r.stderr).toBe(false);
  const lines = r.stderr.split('\n').filter(Boolean);
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
}

describe('tether cluster setup', () => {
  it('is needed before listing and before a worker, registers the attributes once, then has nothing to do', async () => {
    const needed =
      /^tether: namespace 'default' on 127\.0\.0\.1:\d+ lacks tether's search attributes \(.+\): run 'tether cluster setup' once for this namespace$/;
    const before = await Promise.all([
      tether(['list', '--status', 'waiting-approval']),
      tether(['approvals', '--json']),
      tether(['worker']),
    ]);
    for (const r of before) oneLine(r, needed);
    expect(before[2]!.stderr).toContain('TetherStatus (Keyword)');

    const first = await tether(['cluster', 'setup']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^namespace 'default' on 127\.0\.0\.1:\d+: registered 6 search attributes: /);
    for (const name of ['TetherStatus (Keyword)', 'TetherPendingApprovals (KeywordList)', 'TetherBatch (Keyword)'])
      expect(first.stdout).toContain(name);
    const second = await tether(['cluster', 'setup']);
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/all 6 search attributes are registered already; nothing to do\n$/);
    // The server's attribute cache catches up on its own schedule: wait for the listing to work.
    await until('the listing to accept the new attributes', async () => {
      const r = await tether(['list', '--status', 'waiting-approval', '--json']);
      return r.code === 0 && r.stdout.trim() === '[]';
    });
  }, 240_000);

  it('names TEMPORAL_NAMESPACE when the namespace does not exist', async () => {
    for (const args of [['cluster', 'setup'], ['list'], ['approvals']]) {
      const r = await tether(args, { TEMPORAL_NAMESPACE: 'no-such-namespace' });
      oneLine(r, /^tether: namespace 'no-such-namespace' does not exist on .*\(TEMPORAL_NAMESPACE\)/);
    }
  }, 120_000);
});
