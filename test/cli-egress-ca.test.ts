// `tether egress-ca` through the built CLI: it shows the egress proxy's CA (made on first use in TETHER_HOME), the
// same one each time; --pem prints the certificate only; --rotate makes a new one.
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';

describe('tether egress-ca', () => {
  it('shows the CA, prints its certificate, and rotates it', async () => {
    const home = mkdtempSync(join(tmpdir(), 'tether-egress-ca-home-'));
    const cli = (args: string[]) => runCli(['egress-ca', ...args], { cwd: tmpdir(), env: { TETHER_HOME: home } });
    const shown = await cli([]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(
      new RegExp(
        `^CA: ${join(home, 'egress-ca', 'ca.pem')} \\(its key: .*ca-key\\.pem, hidden from every command\\)\\n  subject: CN=tether egress proxy CA`,
      ),
    );
    expect(statSync(join(home, 'egress-ca', 'ca-key.pem')).mode & 0o077).toBe(0);
    const pem = (await cli(['--pem'])).stdout;
    const fingerprint = new X509Certificate(pem).fingerprint256;
    expect(shown.stdout).toContain(`sha256:  ${fingerprint}`);
    const rotated = await cli(['--rotate']);
    expect(rotated.stdout).toMatch(/^made a new CA: [^]*workers take it when they next start/);
    expect(new X509Certificate((await cli(['--pem'])).stdout).fingerprint256).not.toBe(fingerprint);
  });
});
