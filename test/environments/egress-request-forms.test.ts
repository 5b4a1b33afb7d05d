// Request forms around the egress proxy's read-only and path-limited rules (fragments left in a target, the header
// caps, Content-Length/Transfer-Encoding spellings, plain-HTTP absolute URIs, method overrides on git's fetch), from
// inside the local sandbox; written by a second outside attack pass. Each it() asserts the safe outcome.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { egressReadWorld, type Case } from '../support/egress-read-world.js';

const { cwd, run, tls, status, arrived } = egressReadWorld('egress-forms');
/** A PUT with a body: what must never reach a host allowed for reading. */
const putTo = (host: string, p: string): string =>
  `PUT ${p} HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 6\r\nConnection: close\r\n\r\nsecret`;
const writes = (re: RegExp): string[] =>
  arrived((s) => re.test(s.url) && (s.method !== 'GET' || s.body > 0)).map((s) => `${s.method} ${s.url} ${s.body}`);
/** The path a Go server (url.ParseRequestURI keeps `#…` in the path; http.FileServer then path.Clean) serves. */
const goPath = (url: string): string => {
  const p = url.split('?')[0]!;
  const parts: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') parts.pop();
    else parts.push(seg);
  }
  return `/${parts.join('/')}`;
};

// Found by that pass (fixed since: a target with `#` is not plain form): normalPath cut the target at the first `#`; the intercepting
// proxy relays the target as sent (intercept.ts, `path: where.path`), fragment included. Go's net/http keeps `#…` in
// r.URL.Path (url.ParseRequestURI): checked with Go 1.26, http.FileServer served /private/secret for
// `GET /public/x#/../../private/secret`, and httputil.ReverseProxy forwarded `/ok/x%23/../../admin` to its backend
// (which nginx, Tomcat or Python resolve to /admin). No client sends a fragment in a request target.
describe('a fragment (#) left in the request target (the target goes upstream as sent)', () => {
  it('PUT /ok/x#/../../q1-admin on a write-/ok/ entry: never arrives (a Go server cleans it to /q1-admin)', async () => {
    const o = await run([
      tls('frag-put', 'paths.example.test:443', putTo('paths.example.test', '/ok/x#/../../q1-admin')),
    ]);
    writeFileSync(join(cwd, 'frag-put.json'), JSON.stringify(o, null, 1));
    expect(
      arrived((s) => s.url.includes('q1-admin')).map((s) => `${s.method} ${s.url} -> Go: ${goPath(s.url)}`),
    ).toEqual([]);
  });

  it('GET /anywhere#/../q1-read on a read-/anywhere entry: never arrives outside /anywhere', async () => {
    const o = await run([
      tls(
        'frag-get',
        'paths.example.test:443',
        'GET /anywhere#/../q1-read HTTP/1.1\r\nHost: paths.example.test\r\nConnection: close\r\n\r\n',
      ),
    ]);
    writeFileSync(join(cwd, 'frag-get.json'), JSON.stringify(o, null, 1));
    expect(
      arrived((s) => s.url.includes('q1-read')).map((s) => `${s.method} ${s.url} -> Go: ${goPath(s.url)}`),
    ).toEqual([]);
  });

  it('a "git fetch" POST /q1/x/git-upload-pack#/../../../api/deploy to a read-only host: never arrives', async () => {
    const body = 'password=hunter2&';
    const o = await run([
      tls(
        'frag-git',
        'forge.example.test:443',
        `POST /q1/x/git-upload-pack#/../../../q1-deploy HTTP/1.1\r\nHost: forge.example.test\r\nContent-Type: application/x-git-upload-pack-request\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
      ),
    ]);
    writeFileSync(join(cwd, 'frag-git.json'), JSON.stringify(o, null, 1));
    expect(
      arrived((s) => s.url.includes('q1-deploy')).map((s) => `${s.method} ${s.url} ${s.body} -> Go: ${goPath(s.url)}`),
    ).toEqual([]);
  });

  it('the plain-HTTP absolute URI drops the fragment (URL parsing): nothing outside /anywhere arrives', async () => {
    await run([
      {
        name: 'plain-frag',
        kind: 'raw',
        send: 'GET http://plain-paths.example.test/anywhere#/../q1-plain HTTP/1.1\r\nHost: plain-paths.example.test\r\nConnection: close\r\n\r\n',
      },
      {
        name: 'plain-dots',
        kind: 'raw',
        send: 'GET http://plain-paths.example.test/anywhere/%2e%2e/q1-plain2 HTTP/1.1\r\nHost: plain-paths.example.test\r\nConnection: close\r\n\r\n',
      },
    ]);
    expect(arrived((s) => s.url.includes('q1-plain')).map((s) => `${s.method} ${s.url}`)).toEqual([]);
  });
});

describe('around the 256-header and 16 KiB caps (registry.example.test: read)', () => {
  const R = 'registry.example.test';
  const fill = (k: number, tag: string): string => Array.from({ length: k }, (_, i) => `${tag}${i}: b\r\n`).join('');
  it('exactly 256 headers with Content-Length last: a write (refused), its body (a PUT) never a request', async () => {
    const smuggled = putTo(R, '/q2-256-smuggled');
    const o = await run([
      tls(
        'h256',
        `${R}:443`,
        `GET /q2-256 HTTP/1.1\r\nHost: ${R}\r\n${fill(254, 'a')}Content-Length: ${smuggled.length}\r\n\r\n${smuggled}`,
      ),
    ]);
    writeFileSync(join(cwd, 'h256.json'), JSON.stringify(o, null, 1));
    expect(status(o.h256)).toMatch(/^HTTP\/1\.1 403/);
    expect(writes(/q2-256/)).toEqual([]);
  });

  it('257 headers: 431 and closed; neither its body nor a PUT pipelined after it arrives', async () => {
    const smuggled = putTo(R, '/q2-257-smuggled').replace('Connection: close\r\n', '');
    const o = await run([
      tls(
        'h257',
        `${R}:443`,
        `GET /q2-257 HTTP/1.1\r\nHost: ${R}\r\n${fill(255, 'a')}Content-Length: ${smuggled.length}\r\n\r\n${smuggled}${putTo(R, '/q2-257-after')}`,
      ),
      tls(
        'h257-te',
        `${R}:443`,
        `GET /q2-257te HTTP/1.1\r\nHost: ${R}\r\n${fill(255, 'a')}Transfer-Encoding: chunked\r\n\r\n${smuggled.length.toString(16)}\r\n${smuggled}\r\n0\r\n\r\n${putTo(R, '/q2-257te-after')}`,
      ),
      tls(
        'h257-nobody',
        `${R}:443`,
        `GET /q2-257nb HTTP/1.1\r\nHost: ${R}\r\n${fill(255, 'a')}\r\n${putTo(R, '/q2-257nb-after')}`,
      ),
    ]);
    writeFileSync(join(cwd, 'h257.json'), JSON.stringify(o, null, 1));
    expect(status(o.h257)).toMatch(/431|^$|reset|EOF/i);
    expect(writes(/q2-257/)).toEqual([]);
  });

  it('one header just under and just over 16 KiB, Content-Length after it: no PUT arrives', async () => {
    const smuggled = putTo(R, '/q2-big-smuggled');
    const big = (n: number): string => `X-Big: ${'A'.repeat(n)}\r\n`;
    const o = await run([
      tls(
        'big-under',
        `${R}:443`,
        `GET /q2-big-under HTTP/1.1\r\nHost: ${R}\r\n${big(16_000)}Content-Length: ${smuggled.length}\r\n\r\n${smuggled}`,
      ),
      tls(
        'big-over',
        `${R}:443`,
        `GET /q2-big-over HTTP/1.1\r\nHost: ${R}\r\n${big(16_360)}Content-Length: ${smuggled.length}\r\n\r\n${smuggled}`,
      ),
    ]);
    writeFileSync(join(cwd, 'big.json'), JSON.stringify(o, null, 1));
    expect(writes(/q2-big/)).toEqual([]);
  });
});

describe('Content-Length / Transfer-Encoding / Expect / Upgrade spellings (registry.example.test: read)', () => {
  const R = 'registry.example.test';
  const H = `Host: ${R}\r\n`;
  it('comma lists, obs-fold, leading zeros, whitespace, odd values, 100-continue, HTTP/1.0 keep-alive, PRI: no write arrives', async () => {
    const s = (tag: string): string => putTo(R, `/q3-${tag}-smuggled`);
    const g = (tag: string, headers: string, rest: string, version = '1.1'): Case =>
      tls(tag, `${R}:443`, `GET /q3-${tag} HTTP/${version}\r\n${H}${headers}\r\n${rest}`);
    const o = await run([
      g('cl-comma', `Content-Length: ${s('cl-comma').length}, ${s('cl-comma').length}\r\n`, s('cl-comma')),
      g('cl-fold', 'Content-Length: 0\r\n 6\r\n', `secret${s('cl-fold')}`),
      g('cl-fold2', `X-A: b\r\n Content-Length: ${s('cl-fold2').length}\r\n`, s('cl-fold2')),
      g('cl-zeros', `Content-Length: 000${s('cl-zeros').length}\r\n`, s('cl-zeros')),
      g('cl-ws', `Content-Length: \t${s('cl-ws').length} \r\n`, s('cl-ws')),
      g('cl-neg', 'Content-Length: -1\r\n', s('cl-neg')),
      g('cl-huge', 'Content-Length: 99999999999999999999999\r\n', s('cl-huge')),
      g('cl-zero-then-te', 'Content-Length: 0\r\nTransfer-Encoding: chunked\r\n', `0\r\n\r\n${s('cl-zero-then-te')}`),
      g(
        'te-caps',
        'Transfer-Encoding: CHUNKED\r\n',
        `${s('te-caps').length.toString(16)}\r\n${s('te-caps')}\r\n0\r\n\r\n`,
      ),
      g('te-twice', 'Transfer-Encoding: chunked, chunked\r\n', `0\r\n\r\n${s('te-twice')}`),
      g('te-empty', 'Transfer-Encoding:\r\n', s('te-empty')),
      g('expect', `Expect: 100-continue\r\nContent-Length: 6\r\n`, `secret${s('expect')}`),
      g('expect-bad', `Expect: 100-continue, x\r\nContent-Length: 6\r\n`, `secret${s('expect-bad')}`),
      g('http10-ka', 'Connection: keep-alive\r\n', s('http10-ka'), '1.0'),
      g(
        'http10-ka-cl',
        `Connection: keep-alive\r\nContent-Length: ${s('http10-ka-cl').length}\r\n`,
        s('http10-ka-cl'),
        '1.0',
      ),
      g(
        'upgrade-body',
        `Connection: Upgrade\r\nUpgrade: websocket\r\nContent-Length: ${s('upgrade-body').length}\r\n`,
        s('upgrade-body'),
      ),
      g('upgrade-noconn', 'Upgrade: websocket\r\n', s('upgrade-noconn')),
      g(
        'upgrade-h2c',
        'Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n',
        s('upgrade-h2c'),
      ),
      g('conn-cl', `Connection: content-length\r\nContent-Length: ${s('conn-cl').length}\r\n`, s('conn-cl')),
      g('trailer-cl', 'Transfer-Encoding: chunked\r\n', `0\r\nContent-Length: 60\r\n\r\n${s('trailer-cl')}`),
      tls('pri', `${R}:443`, `PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n${s('pri')}`),
      tls('leading-crlf', `${R}:443`, `\r\n\r\nGET /q3-leading HTTP/1.1\r\n${H}\r\n${s('leading-crlf')}`),
    ]);
    writeFileSync(join(cwd, 'framing.json'), JSON.stringify(o, null, 1));
    expect(writes(/q3-/)).toEqual([]);
  });
});

describe('plain-HTTP absolute URIs (plain-read.example.test: read)', () => {
  const P = 'plain-read.example.test';
  it('257 headers, comma Content-Length, Expect, keep-alive pipelining after a refusal: no write arrives', async () => {
    const fill = Array.from({ length: 255 }, (_, i) => `a${i}: b\r\n`).join('');
    const s = (tag: string): string =>
      `PUT http://${P}/q4-${tag}-smuggled HTTP/1.1\r\nHost: ${P}\r\nContent-Length: 6\r\n\r\nsecret`;
    const raw = (name: string, send: string): Case => ({ name, kind: 'raw', send });
    const o = await run([
      raw(
        'p257',
        `GET http://${P}/q4-257 HTTP/1.1\r\nHost: ${P}\r\n${fill}Content-Length: ${s('p257').length}\r\n\r\n${s('p257')}${s('p257b')}`,
      ),
      raw(
        'pcomma',
        `GET http://${P}/q4-comma HTTP/1.1\r\nHost: ${P}\r\nContent-Length: ${s('pcomma').length}, ${s('pcomma').length}\r\n\r\n${s('pcomma')}`,
      ),
      raw(
        'pexpect',
        `GET http://${P}/q4-expect HTTP/1.1\r\nHost: ${P}\r\nExpect: 100-continue\r\nContent-Length: 6\r\n\r\nsecret${s('pexpect')}`,
      ),
      raw('pka', `PUT http://${P}/q4-first HTTP/1.1\r\nHost: ${P}\r\nContent-Length: 6\r\n\r\nsecret${s('pka')}`),
      raw('porigin', `PUT /q4-origin HTTP/1.1\r\nHost: ${P}\r\nContent-Length: 6\r\n\r\nsecret`),
      raw(
        'pupgrade',
        `GET http://${P}/q4-up HTTP/1.1\r\nHost: ${P}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nContent-Length: ${s('pupgrade').length}\r\n\r\n${s('pupgrade')}`,
      ),
    ]);
    writeFileSync(join(cwd, 'plain.json'), JSON.stringify(o, null, 1));
    expect(writes(/q4-/)).toEqual([]);
  });
});

describe('git fetch as a carrier for a write on a read-only host (forge.example.test: read)', () => {
  it('a "fetch" POST carrying X-HTTP-Method-Override (honoured for POST by Express method-override, ASP.NET Core, Symfony): never arrives with it', async () => {
    const body = '0000';
    const o = await run([
      tls(
        'git-override',
        'forge.example.test:443',
        `POST /q5/items/git-upload-pack?_method=DELETE HTTP/1.1\r\nHost: forge.example.test\r\nContent-Type: application/x-git-upload-pack-request\r\nX-HTTP-Method-Override: DELETE\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
      ),
    ]);
    writeFileSync(join(cwd, 'git-override.json'), JSON.stringify(o, null, 1));
    expect(
      arrived((s) => s.url.includes('/q5/') && s.raw.some((h) => /method-override/i.test(h))).map(
        (s) => `${s.method} ${s.url}`,
      ),
    ).toEqual([]);
  });
});
