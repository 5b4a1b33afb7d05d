// Settings that do not fit the real server: TLS on against its plaintext frontend, a namespace it lacks, a port it
// does not listen on. Each is one line naming the setting, never a stack trace.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, inject, it } from 'vitest';
import { freePort } from '../../src/temporal/dev-server.js';
import { runCli, type CliResult } from '../support/cli.js';
import { looksLikeACrash } from '../support/cli-process.js';

async function tether(args: string[], env: Record<string, string>): Promise<CliResult> {
  const cwd = mkdtempSync(join(tmpdir(), 'tether-cluster-bad-'));
  return runCli(args, { cwd, env: { TETHER_HOME: mkdtempSync(join(tmpdir(), 'tether-cluster-bad-home-')), ...env } });
}

function expectOneLine(r: CliResult, pattern: RegExp): void {
  expect(r.code, r.stderr).toBe(1);
  expect(looksLikeACrash(r.stderr), r.stderr).toBe(false);
  const lines = r.stderr.split('\n').filter(Boolean);
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0], r.stderr).toMatch(pattern);
}

it('TLS on, a missing namespace, a closed port: one line each', async () => {
  const address = inject('temporalAddress');
  const closed = `127.0.0.1:${await freePort()}`;
  const [tls, namespace, unreachable] = await Promise.all([
    tether(['list'], { TEMPORAL_ADDRESS: address, TEMPORAL_TLS: 'true' }),
    tether(['worker'], { TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: 'not-registered-here' }),
    tether(['run', 'hello'], { TEMPORAL_ADDRESS: closed }),
  ]);
  expectOneLine(tls, /^tether: Temporal at \S+ \(TEMPORAL_ADDRESS\) does not speak TLS, but TEMPORAL_TLS=true turns/);
  expectOneLine(namespace, /^tether: namespace 'not-registered-here' does not exist on \S+ \(TEMPORAL_NAMESPACE\)/);
  expectOneLine(unreachable, new RegExp(`^tether: cannot reach Temporal at ${closed} \\(TEMPORAL_ADDRESS\\): `));
});
