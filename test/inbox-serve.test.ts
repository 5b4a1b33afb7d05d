// `tether serve`'s inbox login as a user meets it, without a browser: the token kept in TETHER_HOME across
// restarts and rotated by --new-token, the cookie a good link sets, 401 everywhere without a session, another Host
// refused on loopback, the warning for --host 0.0.0.0, and a gateway without approvals.secret that still serves the inbox.
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { startCli, type CliProcess } from './support/cli-process.js';

const running: CliProcess[] = [];
afterAll(async () => {
  for (const s of running) await s.kill();
});

async function serve(home: string, args: string[] = []): Promise<{ s: CliProcess; link: string; base: string }> {
  const s = startCli(['serve', '--port', '0', ...args], {
    env: { TEMPORAL_ADDRESS: inject('temporalAddress'), TETHER_HOME: home },
  });
  running.push(s);
  const link = (await s.waitFor(/^inbox: (http:\/\/\S+)$/m, 'the inbox link'))[1]!;
  return { s, link, base: new URL(link).origin };
}

const get = (url: string, headers: Record<string, string> = {}): Promise<Response> =>
  fetch(url, { redirect: 'manual', headers });

/** A GET with a Host header of our choosing (fetch does not let a caller set Host). */
function getWithHost(base: string, path: string, host: string): Promise<number> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    request({ host: u.hostname, port: u.port, path, headers: { host } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    })
      .on('error', reject)
      .end();
  });
}

describe('tether serve: the inbox login', () => {
  it('keeps the token across restarts; --new-token rotates it and the old link stops working', async () => {
    const home = mkdtempSync(join(tmpdir(), 'tether-inbox-serve-'));
    const first = await serve(home);
    expect(statSync(join(home, 'gateway', 'inbox-token')).mode & 0o777).toBe(0o600);
    const ok = await get(first.link);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('<meta http-equiv="refresh" content="0; url=/inbox">');
    expect(ok.headers.get('set-cookie')).toMatch(
      /^tether_inbox_\d+=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\//,
    );
    await first.s.kill('SIGINT');

    const second = await serve(home);
    const token = (l: string): string => new URL(l).searchParams.get('token')!;
    expect(token(second.link)).toBe(token(first.link));
    await second.s.kill('SIGINT');

    const third = await serve(home, ['--new-token']);
    expect(token(third.link)).not.toBe(token(first.link));
    const old = await get(`${third.base}/inbox?token=${token(first.link)}`);
    expect(old.status).toBe(401);
    expect(old.headers.get('set-cookie')).toBeNull();
    expect((await get(third.link)).headers.get('set-cookie')).toMatch(/^tether_inbox_/);
  });

  it('answers 401 to every page and action without a session, and refuses another Host on loopback', async () => {
    const { base, link } = await serve(mkdtempSync(join(tmpdir(), 'tether-inbox-serve-')));
    for (const path of ['/inbox', '/inbox/runs', '/inbox/runs/some-run']) {
      const res = await get(`${base}${path}`);
      expect(res.status, path).toBe(401);
      expect(await res.text()).toContain('Log in with the link <code>tether serve</code> printed');
    }
    for (const path of ['/inbox/api/approvals', '/inbox/api/runs', '/inbox/api/runs/x']) {
      const res = await get(`${base}${path}`);
      expect(res.status, path).toBe(401);
      expect(await res.json()).toEqual({ error: 'no session: log in with the link tether serve printed' });
    }
    const post = await fetch(`${base}/inbox/api/decide`, { method: 'POST', body: '{}', headers: { origin: base } });
    expect(post.status).toBe(401);
    // A page of evil.example resolving to 127.0.0.1 (DNS rebinding) names its own host.
    const port = new URL(base).port;
    expect(await getWithHost(base, new URL(link).pathname + new URL(link).search, `evil.example:${port}`)).toBe(421);
    expect(await getWithHost(base, '/inbox', `localhost:${port}`)).toBe(401);
  });

  it('serves the inbox without approvals.secret (signed decisions answer 503), and warns for --host 0.0.0.0', async () => {
    const { s, base } = await serve(mkdtempSync(join(tmpdir(), 'tether-inbox-serve-')), ['--host', '0.0.0.0']);
    expect(s.output()).toContain('POST /approvals/decision (off: approvals.secret is not set)');
    await s.waitFor(/^warning: listening on 0\.0\.0\.0, not only this machine/m, 'the warning');
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const signed = await fetch(`${base}/approvals/decision`, { method: 'POST', body: '{}' });
    expect(signed.status).toBe(503);
    expect(await signed.json()).toEqual({
      error: 'approvals.secret is not set in config.yaml: signed decisions are turned off',
    });
  });
});
