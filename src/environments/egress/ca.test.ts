// Unit tests of the proxy's CA: made once in its directory (the key readable by the worker only), loaded again as
// it is, replaced by rotation; leaf certificates that Node's TLS accepts for their host and no other.
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, statSync } from 'node:fs';
import { createServer } from 'node:tls';
import { connect, type TLSSocket } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { caFiles, LeafIssuer, loadAuthority, rotateAuthority } from './ca.js';

const home = (): string => mkdtempSync(join(tmpdir(), 'tether-ca-'));

/** Whether a client trusting only `ca` and asking for `servername` accepts the leaf `issuer` makes for `host`. */
async function accepted(issuer: LeafIssuer, ca: string, host: string, servername: string): Promise<string> {
  const context = await issuer.context(host, 0);
  const server = createServer({ SNICallback: (_n, cb) => cb(null, context) }, (s) => s.end());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  try {
    return await new Promise((resolve) => {
      const c: TLSSocket = connect({ port, host: '127.0.0.1', servername, ca }, () => {
        resolve('accepted');
        c.end();
      });
      c.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
    });
  } finally {
    server.close();
  }
}

describe("the egress proxy's CA", () => {
  it('is made once, its key private to the worker, and loaded again unchanged', async () => {
    const files = caFiles(home());
    const a = await loadAuthority(files);
    expect(statSync(files.key).mode & 0o077).toBe(0);
    expect(statSync(files.dir).mode & 0o077).toBe(0);
    const cert = new X509Certificate(a.certPem);
    expect(cert.ca).toBe(true);
    expect(cert.subject).toMatch(/CN=tether egress proxy CA/);
    expect(new Date(cert.validTo).getTime()).toBeGreaterThan(Date.now() + 4 * 365 * 24 * 3600_000);
    expect((await loadAuthority(files)).certPem).toBe(a.certPem);
  });

  it('two workers starting at once share one CA', async () => {
    const files = caFiles(home());
    const [a, b] = await Promise.all([loadAuthority(files), loadAuthority(files)]);
    expect((await loadAuthority(files)).certPem).toBe(a.certPem);
    expect([a.certPem, b.certPem]).toContain((await loadAuthority(files)).certPem);
  });

  it('rotation makes a new one: a client trusting the old CA no longer accepts its leaves', async () => {
    const files = caFiles(home());
    const old = await loadAuthority(files);
    const fresh = await rotateAuthority(files);
    expect(fresh.certPem).not.toBe(old.certPem);
    expect(await accepted(new LeafIssuer(fresh), old.certPem, 'registry.example', 'registry.example')).not.toBe(
      'accepted',
    );
    expect(await accepted(new LeafIssuer(fresh), fresh.certPem, 'registry.example', 'registry.example')).toBe(
      'accepted',
    );
  });

  it('a leaf names its host only, is cached, and an IP literal gets an IP name', async () => {
    const ca = await loadAuthority(caFiles(home()));
    const issuer = new LeafIssuer(ca);
    expect(await accepted(issuer, ca.certPem, 'registry.example', 'registry.example')).toBe('accepted');
    expect(await accepted(issuer, ca.certPem, 'registry.example', 'other.example')).toBe(
      'ERR_TLS_CERT_ALTNAME_INVALID',
    );
    expect(issuer.context('registry.example', 0)).toBe(issuer.context('registry.example', 0));
    const long = `${'a'.repeat(60)}.${'b'.repeat(60)}.example`;
    expect(await accepted(issuer, ca.certPem, long, long)).toBe('accepted');
    await expect(issuer.context('203.0.113.9', 4)).resolves.toBeDefined();
  });
});
