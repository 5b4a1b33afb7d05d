// TLS settings that do not match the server: one line naming the setting, for the commands that talk to Temporal.
// TLS on against the real (plaintext) dev server; TLS off, and an untrusted certificate, against a TLS endpoint that
// stands in for a TLS-only Temporal frontend (a Node HTTP/2 server with a throw-away certificate: it speaks TLS, not
// Temporal, which is all the handshake sees).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createSecureServer, type Http2SecureServer } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runCli, type CliResult } from '../support/cli.js';
import { looksLikeACrash } from '../support/cli-process.js';

const COMMANDS = [['list'], ['approve', 'some-run', 'some-approval'], ['run', 'say hello'], ['worker']];

async function everyCommand(env: Record<string, string>): Promise<[string[], CliResult][]> {
  const cwd = mkdtempSync(join(tmpdir(), 'tether-bad-tls-'));
  return Promise.all(
    COMMANDS.map(
      async (args) =>
        [
          args,
          await runCli(args, {
            cwd,
            env: { TETHER_HOME: mkdtempSync(join(tmpdir(), 'tether-bad-tls-home-')), ...env },
          }),
        ] as [string[], CliResult],
    ),
  );
}

function expectOneLine(args: string[], r: CliResult, pattern: RegExp): void {
  const what = `tether ${args.join(' ')}: ${r.stderr}`;
  expect(r.code, what).toBe(1);
  expect(looksLikeACrash(r.stderr), what).toBe(false);
  const lines = r.stderr.split('\n').filter(Boolean);
  expect(lines, what).toHaveLength(1);
  expect(lines[0], what).toMatch(pattern);
}

let server: Http2SecureServer;
let tlsAddress: string;
let wrongCa: string;

/** A self-signed certificate for 127.0.0.1 (key and certificate files), made with openssl. */
function certificate(dir: string, name: string): { key: string; cert: string } {
  const key = join(dir, `${name}.key`);
  const cert = join(dir, `${name}.pem`);
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  );
  return { key, cert };
}

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tether-tls-endpoint-'));
  const own = certificate(dir, 'server');
  wrongCa = certificate(dir, 'other').cert;
  server = createSecureServer({ key: readFileSync(own.key), cert: readFileSync(own.cert), allowHTTP1: false });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  tlsAddress = `127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('TLS that does not match the server', () => {
  it('TEMPORAL_TLS=true against the plaintext dev server names TEMPORAL_TLS', async () => {
    for (const [args, r] of await everyCommand({ TEMPORAL_ADDRESS: inject('temporalAddress'), TEMPORAL_TLS: 'true' })) {
      expectOneLine(
        args,
        r,
        /^tether: Temporal at \S+ \(TEMPORAL_ADDRESS\) does not speak TLS, but TEMPORAL_TLS=true turns TLS on: /,
      );
    }
  }, 120_000);

  it('TLS off against a TLS endpoint (a stand-in, not Temporal) says to set TEMPORAL_TLS', async () => {
    for (const [args, r] of await everyCommand({ TEMPORAL_ADDRESS: tlsAddress })) {
      expectOneLine(
        args,
        r,
        /^tether: Temporal at \S+ \(TEMPORAL_ADDRESS\) speaks TLS, but TLS is off: set TEMPORAL_TLS=true /,
      );
    }
  }, 120_000);

  it('a certificate nobody vouches for (TLS stand-in, not Temporal) names TEMPORAL_TLS_CA', async () => {
    for (const [args, r] of await everyCommand({ TEMPORAL_ADDRESS: tlsAddress, TEMPORAL_TLS: 'true' })) {
      expectOneLine(
        args,
        r,
        /^tether: Temporal at \S+ \(TEMPORAL_ADDRESS\) presents a TLS certificate the system does not trust \(\w+\): set TEMPORAL_TLS_CA /,
      );
    }
    for (const [args, r] of await everyCommand({ TEMPORAL_ADDRESS: tlsAddress, TEMPORAL_TLS_CA: wrongCa })) {
      expectOneLine(
        args,
        r,
        /^tether: Temporal at \S+ \(TEMPORAL_ADDRESS\) presents a TLS certificate that TEMPORAL_TLS_CA=\S+ does not vouch for \(\w+\): /,
      );
    }
  }, 120_000);
});
