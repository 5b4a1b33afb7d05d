// The egress proxy reading what leaves, for real, from inside the local sandbox (bwrap, the task's network
// namespace): HTTPS opened with the worker's CA (commands trust it without being told), each request of a host
// allowed for reading checked for what it does, credentials added by the proxy and never seen inside, and the ways
// an attacker inside would try to get a request past it. Outside hosts are names mapped by egress.resolve to HTTPS
// stand-ins on 127.0.0.1 with a private CA made by openssl (egress.upstream_ca_file); nothing leaves loopback. No run
// is asked here (no worker): what the policy does not allow is refused, saying so (test/egress-agent.test.ts asks).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { environmentManager } from '../../src/environments/current.js';
import { caFiles } from '../../src/environments/egress/ca.js';
import { call, configure, dir, type Result } from '../support/local-sandbox.js';
import { gitSmartHttp, makeCertificate, resolveAll, startStandIn, type StandIn } from '../support/egress-stand-in.js';
import type { recordingLogger } from '../support/recording-logger.js';

const cwd = dir('tether-egress-tls-');
let n = 0;
const task = (): string => `egress-tls-${process.pid}-${++n}`;
const sh = (taskId: string, command: string): Promise<Result> => call('terminal', taskId, cwd, { command });

const TOKEN = `tok_${randomBytes(16).toString('hex')}`;
let stand: StandIn;
/** A plain HTTP stand-in: a credential's host over port 80. */
let plain: StandIn;
let log: ReturnType<typeof recordingLogger>;

/** Answers "hello from HOST/PATH", counts every body, and upgrades /ws to an echo. */
function outside(req: IncomingMessage, res: ServerResponse): void {
  let bytes = 0;
  req.on('data', (c: Buffer) => (bytes += c.length));
  req.on('end', () => {
    res.writeHead(req.method === 'GET' || req.method === 'HEAD' ? 200 : 201, { 'content-type': 'text/plain' });
    res.end(`hello from ${(req.headers.host ?? '').replace(/:\d+$/, '')}${req.url ?? ''} (${bytes} bytes)\n`);
  });
}

const HOSTS = ['registry', 'open', 'paths', 'api', 'other', 'forge', 'pinned', 'pinned-open', 'npm'].map(
  (h) => `${h}.example.test`,
);

beforeAll(async () => {
  makeCertificate(cwd);
  execFileSync('git', ['init', '-q', '--bare', join(cwd, 'forge', 'repo.git')]);
  const seed = join(cwd, 'seed');
  const git = (args: string[], at = cwd): string =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.test', ...args], {
      cwd: at,
      encoding: 'utf8',
    });
  git(['init', '-q', '-b', 'main', seed]);
  git(['commit', '-q', '--allow-empty', '-m', 'first commit'], seed);
  git(['push', '-q', join(cwd, 'forge', 'repo.git'), 'main'], seed);
  execFileSync('git', ['-C', join(cwd, 'forge', 'repo.git'), 'symbolic-ref', 'HEAD', 'refs/heads/main']);
  stand = await startStandIn(
    gitSmartHttp(join(cwd, 'forge'), undefined, outside),
    { cert: join(cwd, 'ca.pem'), key: join(cwd, 'stand-in.key') },
    // A websocket stand-in: switches protocols, then echoes what it is sent.
    (req, socket, head) => {
      socket.write('HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\n\r\n');
      if (head.length > 0) socket.write(head);
      socket.pipe(socket);
    },
  );
  plain = await startStandIn();
  process.env.TETHER_EGRESS_TEST_TOKEN = TOKEN;
  log = await configure({
    sandbox: {
      egress: {
        allow: [
          { host: 'registry.example.test', access: 'read' },
          { host: 'forge.example.test', access: 'read' },
          'open.example.test',
          'api.example.test',
          'other.example.test',
          'plain-api.example.test',
          { host: 'plain-read.example.test', access: 'read' },
          { host: 'npm.example.test', access: 'write', paths: ['/demo-brokered'] },
          { host: 'paths.example.test', access: 'write', paths: ['/ok/'] },
          { host: 'paths.example.test', access: 'read', paths: ['/anywhere'] },
          { host: 'pinned.example.test', access: 'read' },
          // Mapped to the stand-in, whose certificate does not name it: the proxy must not accept it upstream.
          { host: 'wrong-name.test', access: 'read' },
          'pinned-open.example.test',
        ],
        passthrough: ['pinned.example.test', 'pinned-open.example.test'],
        credentials: [
          { host: 'api.example.test', header: 'Authorization', value: 'Bearer ${TETHER_EGRESS_TEST_TOKEN}' },
          { host: 'plain-api.example.test:*', value: 'Bearer ${TETHER_EGRESS_TEST_TOKEN}' },
          { host: 'npm.example.test', value: 'Bearer ${TETHER_EGRESS_TEST_TOKEN}' },
          // Passthrough: never read, so never given the credential.
          { host: 'pinned-open.example.test', value: 'Bearer ${TETHER_EGRESS_TEST_TOKEN}' },
        ],
        upstream_ca_file: join(cwd, 'ca.pem'),
        resolve: {
          ...resolveAll([...HOSTS, 'wrong-name.test'], stand),
          ...resolveAll(['plain-api.example.test', 'plain-read.example.test'], plain),
        },
      },
    },
  });
});

afterAll(async () => {
  await environmentManager().closeAll();
  await stand.close();
  await plain.close();
  delete process.env.TETHER_EGRESS_TEST_TOKEN;
});

const arrived = (method: string, path: string): number =>
  stand.seen.filter((s) => s.method === method && s.url === path).length;

describe('HTTPS through the proxy that reads it', () => {
  it('a GET to a host allowed for reading passes, trusting the proxy without being told; the CA key stays hidden', async () => {
    const r = await sh(
      task(),
      'curl -fsS https://registry.example.test/pkg/a && ' +
        // Without any variable: the machine's bundle path inside holds the proxy's CA too.
        'env -u SSL_CERT_FILE -u CURL_CA_BUNDLE curl -fsS https://registry.example.test/pkg/b && ' +
        'python3 -c "import urllib.request; print(urllib.request.urlopen(\'https://registry.example.test/pkg/c\').read().decode().strip())" && ' +
        `{ test -e ${caFiles().key} && echo visible || echo hidden; }; grep -c 'PRIVATE KEY' /run/tether/* ; echo "$SSL_CERT_FILE"`,
    );
    expect(r.output).toBe(
      'hello from registry.example.test/pkg/a (0 bytes)\nhello from registry.example.test/pkg/b (0 bytes)\n' +
        'hello from registry.example.test/pkg/c (0 bytes)\n' +
        'hidden\n/run/tether/ca-bundle.pem:0\n/run/tether/egress-ca.pem:0\n/run/tether/ca-bundle.pem\n',
    );
  });

  it('a PUT or POST to it is refused outside a run and never arrives; the result says why', async () => {
    const r = await sh(
      task(),
      "curl -sS -o /dev/null -w '%{http_code} ' -X PUT --data-binary 'name=demo' https://registry.example.test/demo; " +
        "curl -sS -w ' %{http_code}' -d @/etc/hostname https://registry.example.test/-/upload; exit 1",
    );
    expect(r.output).toMatch(/^403 tether egress proxy: POST https:\/\/registry\.example\.test\/-\/upload: .* 403$/s);
    expect(r.sandbox).toMatch(
      /PUT https:\/\/registry\.example\.test\/demo: registry\.example\.test:443 is allowed for reading only \(egress\.allow: registry\.example\.test \(read\)\), and there is no run to ask/,
    );
    expect(arrived('PUT', '/demo') + arrived('POST', '/-/upload')).toBe(0);
  });
});

/**
 * A Python program inside the sandbox: CONNECT through the proxy to `connect` (host:port), TLS with SNI `sni` and
 * ALPN `alpn` (trusting SSL_CERT_FILE), then `send`; prints one JSON line: the CONNECT answer's status line, the
 * protocol chosen, a TLS error, and what came back (as latin-1).
 */
function tlsExchange(o: { connect: string; sni: string; alpn?: string[]; send: string; seconds?: number }): string {
  const program = `
import json, os, socket, ssl
port = int(os.environ['HTTP_PROXY'].rsplit(':', 1)[1])
s = socket.create_connection(('127.0.0.1', port), 5)
s.sendall(b'CONNECT ${o.connect} HTTP/1.1\\r\\nHost: ${o.connect}\\r\\n\\r\\n')
head = b''
while b'\\r\\n\\r\\n' not in head:
  c = s.recv(1)
  if not c: break
  head += c
out = {'connect': head.split(b'\\r\\n')[0].decode('latin-1')}
ctx = ssl.create_default_context(cafile=os.environ['SSL_CERT_FILE'])
ctx.set_alpn_protocols(${JSON.stringify(o.alpn ?? ['http/1.1'])})
try:
  t = ctx.wrap_socket(s, server_hostname=${JSON.stringify(o.sni)})
  out['alpn'] = t.selected_alpn_protocol()
  t.sendall(bytes.fromhex('${Buffer.from(o.send).toString('hex')}'))
  t.settimeout(${o.seconds ?? 5})
  reply = b''
  try:
    while True:
      c = t.recv(65536)
      if not c: break
      reply += c
  except (socket.timeout, ssl.SSLError, ConnectionResetError): pass
  out['reply'] = reply.decode('latin-1')
except ssl.SSLError as e:
  out['error'] = str(e)
print(json.dumps(out))
`;
  return `python3 -c '${program.replace(/'/g, `'"'"'`)}'`;
}

async function exchange(o: Parameters<typeof tlsExchange>[0]): Promise<{
  connect: string;
  alpn?: string;
  reply?: string;
  error?: string;
}> {
  const r = await sh(task(), tlsExchange(o));
  expect(r.exit_code, r.output).toBe(0);
  return JSON.parse(r.output!.trim().split('\n').at(-1)!) as { connect: string; alpn?: string; reply?: string };
}

describe('what the proxy reads, request by request', () => {
  it('git clone over HTTPS (smart HTTP) from a forge allowed for reading passes; git push to it is refused', async () => {
    const t = task();
    const clone = await sh(t, 'git clone -q https://forge.example.test/repo.git work && git -C work log --format=%s');
    expect(clone.output).toBe('first commit\n');
    // git's fetch posts to git-upload-pack: a read.
    expect(arrived('POST', '/repo.git/git-upload-pack')).toBeGreaterThanOrEqual(1);
    const push = await sh(
      t,
      'cd work && git -c user.name=t -c user.email=t@example.test commit -q --allow-empty -m second && GIT_TERMINAL_PROMPT=0 git push -q origin main',
    );
    expect(push.exit_code).not.toBe(0);
    expect(push.sandbox).toMatch(
      /POST https:\/\/forge\.example\.test\/repo\.git\/git-receive-pack: forge\.example\.test:443 is allowed for reading only/,
    );
    expect(arrived('POST', '/repo.git/git-receive-pack')).toBe(0);
    expect(
      execFileSync('git', ['-C', join(cwd, 'forge', 'repo.git'), 'log', '--format=%s', 'main'], { encoding: 'utf8' }),
    ).toBe('first commit\n');
  });

  it('a write entry limited to a path: writes under it pass, elsewhere (or by .., %2f) they are refused', async () => {
    const r = await sh(
      task(),
      [
        "curl -sS -X PUT --data-binary 'x=1' https://paths.example.test/ok/file",
        "curl -sS -o /dev/null -w '%{http_code}\\n' -X PUT --data-binary 'x=2' https://paths.example.test/okay",
        "curl -sS -o /dev/null -w '%{http_code}\\n' --path-as-is -X PUT --data-binary 'x=3' https://paths.example.test/ok/../admin",
        "curl -sS -o /dev/null -w '%{http_code}\\n' -X PUT --data-binary 'x=4' https://paths.example.test/ok%2f..%2fadmin",
        'curl -sS https://paths.example.test/anywhere',
        // Reads too are allowed only where an entry says: this one names /anywhere (and /ok/, where writes are).
        "curl -sS -o /dev/null -w '%{http_code}\\n' https://paths.example.test/elsewhere",
      ].join('; '),
    );
    expect(r.output).toBe(
      'hello from paths.example.test/ok/file (3 bytes)\n403\n403\n403\nhello from paths.example.test/anywhere (0 bytes)\n403\n',
    );
    expect(stand.seen.filter((x) => x.host === 'paths.example.test').map((x) => `${x.method} ${x.url}`)).toEqual([
      'PUT /ok/file',
      'GET /anywhere',
    ]);
  });

  it('a GET or HEAD with a body is a write; an OPTIONS without one is a read', async () => {
    const r = await sh(
      task(),
      "curl -sS -o /dev/null -w '%{http_code}\\n' -X GET --data-binary 'secret' https://registry.example.test/q; " +
        "curl -sS -o /dev/null -w '%{http_code}\\n' -X OPTIONS https://registry.example.test/o",
    );
    expect(r.output).toBe('403\n201\n');
    expect(arrived('GET', '/q')).toBe(0);
    expect(arrived('OPTIONS', '/o')).toBe(1);
  });

  it('keep-alive: requests on one client connection share one upstream connection; HTTP/2 clients get HTTP/1.1', async () => {
    const before = stand.connections();
    const r = await sh(
      task(),
      "curl -sS --http2 -w '%{http_version}\\n' https://registry.example.test/k1 https://registry.example.test/k2 https://registry.example.test/k3",
    );
    expect(r.output).toBe([1, 2, 3].map((i) => `hello from registry.example.test/k${i} (0 bytes)\n1.1\n`).join(''));
    expect(stand.connections() - before).toBe(1);
  });
});

describe('plain HTTP to a host allowed for reading', () => {
  it('is read the same way, as absolute-URI requests and inside a CONNECT to port 80', async () => {
    const r = await sh(
      task(),
      'curl -fsS http://plain-read.example.test/abs-read; ' +
        "curl -sS -o /dev/null -w '%{http_code}\\n' -d x http://plain-read.example.test/abs-write; " +
        'curl -fsS --proxytunnel http://plain-read.example.test/tunnel-read; ' +
        "curl -sS -o /dev/null -w '%{http_code}\\n' --proxytunnel -X PUT -d x http://plain-read.example.test/tunnel-write",
    );
    expect(r.output).toBe(
      'hello from plain-read.example.test/abs-read\n403\nhello from plain-read.example.test/tunnel-read\n403\n',
    );
    expect(plain.seen.map((x) => x.url).filter((u) => u.includes('write'))).toEqual([]);
  });
});

describe('an absolute https:// request sent to the proxy in the clear (busybox and Alpine wget)', () => {
  it('is decided like any other, sent on over verified TLS, and given the credential', async () => {
    const request = (method: string, url: string, body = ''): string =>
      `${method} ${url} HTTP/1.1\r\nHost: ${new URL(url).host}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`;
    const send = (bytes: string): string => `python3 -c "
import os, socket
port = int(os.environ['HTTP_PROXY'].rsplit(':', 1)[1])
s = socket.create_connection(('127.0.0.1', port), 5)
s.sendall(bytes.fromhex('${Buffer.from(bytes).toString('hex')}'))
out = b''
while True:
  c = s.recv(65536)
  if not c: break
  out += c
print(out.split(b'\\r\\n')[0].decode())
"`;
    const r = await sh(
      task(),
      [
        send(request('GET', 'https://registry.example.test/absolute')),
        send(request('POST', 'https://registry.example.test/absolute-upload', 'x=1')),
        send(request('GET', 'https://api.example.test/absolute-credential')),
        send(request('GET', 'https://wrong-name.test/absolute')),
      ].join('; '),
    );
    expect(r.output).toBe('HTTP/1.1 200 OK\nHTTP/1.1 403 Forbidden\nHTTP/1.1 200 OK\nHTTP/1.1 502 Bad Gateway\n');
    // busybox's wget sends https:// requests this way, and half-closes its side once the request is sent.
    const bb = await sh(task(), 'busybox wget -q -O - https://registry.example.test/busybox');
    expect(bb.output).toBe('hello from registry.example.test/busybox (0 bytes)\n');
    expect(arrived('POST', '/absolute-upload')).toBe(0);
    expect(stand.seen.find((x) => x.url === '/absolute-credential')?.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });
});

describe('credentials the proxy adds', () => {
  it("a request to the credential's host carries the broker's value, whatever the command sent; no other host gets it", async () => {
    const r = await sh(
      task(),
      "curl -fsS https://api.example.test/user && curl -fsS -H 'Authorization: Bearer mine' -H 'authorization: Basic eA==' https://api.example.test/other && " +
        'curl -fsS --cacert ca.pem https://other.example.test/x && curl -fsS http://plain-api.example.test/plain',
    );
    expect(r.output).toBe(
      'hello from api.example.test/user (0 bytes)\nhello from api.example.test/other (0 bytes)\n' +
        'hello from other.example.test/x (0 bytes)\nhello from plain-api.example.test/plain\n',
    );
    const auth = (path: string): unknown => stand.seen.find((x) => x.url === path)?.headers.authorization;
    expect(auth('/user')).toBe(`Bearer ${TOKEN}`);
    expect(auth('/other')).toBe(`Bearer ${TOKEN}`);
    // Another host never gets it, nor does plain HTTP (its entry covers port 80 too).
    expect(auth('/x')).toBeUndefined();
    expect(plain.seen.find((x) => x.url === '/plain')?.headers).not.toHaveProperty('authorization');
  });

  it("npm publish with a placeholder token arrives carrying the broker's", async () => {
    const r = await sh(
      task(),
      'mkdir -p pkg && cd pkg && printf \'{"name":"demo-brokered","version":"1.0.0"}\' > package.json && ' +
        "printf '//npm.example.test/:_authToken=placeholder\\n' > .npmrc && " +
        'npm_config_cache=/tmp/npm-cache npm_config_update_notifier=false npm publish --registry https://npm.example.test/ 2>&1 | tail -1; cd ..',
    );
    expect(r.output).toMatch(/\+ demo-brokered@1\.0\.0/);
    const put = stand.seen.find((x) => x.method === 'PUT' && x.url === '/demo-brokered');
    expect(put?.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('the value is nowhere a command can read it: environment, /proc, files, the output, the log', async () => {
    const encoded = Buffer.from(TOKEN).toString('base64');
    // The command searches for the value without holding it whole (its own text is in the log).
    const half = (v: string): string => `"${v.slice(0, 10)}""${v.slice(10)}"`;
    const r = await sh(
      task(),
      'env; cat /proc/self/environ | tr "\\0" "\\n"; cat /proc/1/environ 2>/dev/null | tr "\\0" "\\n"; ' +
        `grep -rIl -e ${half(TOKEN)} -e ${half(encoded)} /run /tmp /etc . 2>/dev/null; curl -fsS https://api.example.test/seen`,
    );
    expect(r.output).toMatch(/hello from api\.example\.test\/seen/);
    expect(stand.seen.find((x) => x.url === '/seen')?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    for (const form of [TOKEN, encoded, TOKEN.slice(4, 20)]) {
      expect(r.output).not.toContain(form);
      expect(JSON.stringify(log.lines)).not.toContain(form);
    }
    expect(
      log.lines.some(
        (l) => l.msg === 'egress request' && (l.obj as { credential?: string }).credential === 'authorization',
      ),
    ).toBe(true);
  });
});

describe('attacks on the proxy that reads', () => {
  it('TLS SNI of another host than CONNECT named is refused in the handshake', async () => {
    for (const sni of ['other.example.test', 'open.example.test', 'api.example.test']) {
      const o = await exchange({
        connect: 'registry.example.test:443',
        sni,
        send: 'GET /sni HTTP/1.1\r\nHost: registry.example.test\r\n\r\n',
      });
      expect(o.connect).toBe('HTTP/1.1 200 Connection established');
      // The handshake ends without a certificate for that name (an alert, or the connection closed).
      expect(o.error, sni).toMatch(/alert|handshake|EOF/i);
      expect(o.reply).toBeUndefined();
    }
    expect(stand.seen.filter((x) => x.url === '/sni')).toEqual([]);
  });

  it('a Host header or absolute-form target for another host (or port) gets 421 and goes nowhere', async () => {
    for (const request of [
      'GET /misdirected HTTP/1.1\r\nHost: other.example.test\r\n\r\n',
      'GET /misdirected HTTP/1.1\r\nHost: api.example.test\r\n\r\n',
      'GET /misdirected HTTP/1.1\r\nHost: registry.example.test:8443\r\n\r\n',
      'GET https://other.example.test/misdirected HTTP/1.1\r\nHost: registry.example.test\r\n\r\n',
      'GET http://registry.example.test/misdirected HTTP/1.1\r\nHost: registry.example.test\r\n\r\n',
      // A valid request first, then another host on the same kept-alive connection (HTTP/2 would coalesce it).
      'GET /fine HTTP/1.1\r\nHost: registry.example.test\r\n\r\nGET /misdirected HTTP/1.1\r\nHost: other.example.test\r\n\r\n',
    ]) {
      const o = await exchange({ connect: 'registry.example.test:443', sni: 'registry.example.test', send: request });
      expect(o.reply, request).toMatch(/HTTP\/1\.1 421 Misdirected Request/);
    }
    expect(stand.seen.filter((x) => x.url.endsWith('/misdirected'))).toEqual([]);
  });

  it('HTTP/2: a client offering h2 and http/1.1 gets http/1.1; the h2 preface itself is refused', async () => {
    const o = await exchange({
      connect: 'registry.example.test:443',
      sni: 'registry.example.test',
      alpn: ['h2', 'http/1.1'],
      send: 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n',
    });
    expect(o.alpn).toBe('http/1.1');
    expect(o.reply).toMatch(/^HTTP\/1\.1 400 /);
  });

  it('request smuggling inside TLS: CL with TE is refused, and an allowed chunked body is relayed framed', async () => {
    const smuggled = 'PUT /ok/smuggled HTTP/1.1\r\nHost: paths.example.test\r\nContent-Length: 1\r\n\r\nx';
    const both = await exchange({
      connect: 'paths.example.test:443',
      sni: 'paths.example.test',
      send: `POST /ok/a HTTP/1.1\r\nHost: paths.example.test\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n${smuggled}`,
    });
    expect(both.reply).toMatch(/^HTTP\/1\.1 400 /);
    const chunk = Buffer.byteLength(smuggled).toString(16);
    const framed = await exchange({
      connect: 'paths.example.test:443',
      sni: 'paths.example.test',
      send: `GET /ok/b HTTP/1.1\r\nHost: paths.example.test\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${chunk}\r\n${smuggled}\r\n0\r\n\r\n`,
    });
    expect(framed.reply).toMatch(`hello from paths.example.test/ok/b (${Buffer.byteLength(smuggled)} bytes)`);
    expect(stand.seen.filter((x) => x.url === '/ok/smuggled' || x.url === '/ok/a')).toEqual([]);
  });

  it('a body cannot be unframed by naming Content-Length in Connection: it still arrives as the body', async () => {
    const smuggled = 'PUT /admin HTTP/1.1\r\nHost: paths.example.test\r\nContent-Length: 1\r\n\r\nx';
    const o = await exchange({
      connect: 'paths.example.test:443',
      sni: 'paths.example.test',
      send: `GET /ok/framed HTTP/1.1\r\nHost: paths.example.test\r\nContent-Length: ${smuggled.length}\r\nConnection: content-length, close\r\n\r\n${smuggled}`,
    });
    expect(o.reply).toMatch(`hello from paths.example.test/ok/framed (${smuggled.length} bytes)`);
    expect(stand.seen.filter((x) => x.url === '/admin')).toEqual([]);
  });

  it('TRACE, which echoes the request back, is never sent where the proxy adds a credential', async () => {
    const o = await exchange({
      connect: 'api.example.test:443',
      sni: 'api.example.test',
      send: 'TRACE /echo HTTP/1.1\r\nHost: api.example.test\r\nConnection: close\r\n\r\n',
    });
    expect(o.reply).toMatch(/^HTTP\/1\.1 403 [^]*TRACE echoes the request back/);
    expect(o.reply).not.toContain(TOKEN);
    expect(stand.seen.filter((x) => x.url === '/echo')).toEqual([]);
  });

  it('SOCKS5 to a host allowed for reading is read the same way: a GET passes, a PUT is refused', async () => {
    const r = await sh(
      task(),
      'curl -fsS --proxy "$ALL_PROXY" https://registry.example.test/socks-read; ' +
        `curl -sS -o /dev/null -w '%{http_code}\\n' --proxy "$ALL_PROXY" -X PUT -d x https://registry.example.test/socks-write`,
    );
    expect(r.output).toBe('hello from registry.example.test/socks-read (0 bytes)\n403\n');
    expect(arrived('PUT', '/socks-write')).toBe(0);
  });

  it('oversized headers are refused with 431 and reach nothing', async () => {
    const o = await exchange({
      connect: 'registry.example.test:443',
      sni: 'registry.example.test',
      send: `GET /big-header HTTP/1.1\r\nHost: registry.example.test\r\nX-Big: ${'a'.repeat(40_000)}\r\n\r\n`,
    });
    expect(o.reply).toMatch(/^HTTP\/1\.1 431 /);
    expect(arrived('GET', '/big-header')).toBe(0);
  });

  it('Expect: 100-continue: an allowed write arrives whole; to a host allowed for reading nothing arrives', async () => {
    const r = await sh(
      task(),
      "head -c 300000 /dev/urandom > body.bin; curl -sS -H 'Expect: 100-continue' -X PUT --data-binary @body.bin https://paths.example.test/ok/expect; " +
        "curl -sS -o /dev/null -w '%{http_code}\\n' -H 'Expect: 100-continue' -X PUT --data-binary @body.bin https://registry.example.test/expect",
    );
    expect(r.output).toBe('hello from paths.example.test/ok/expect (300000 bytes)\n403\n');
    expect(arrived('PUT', '/expect')).toBe(0);
  });

  it('an upgrade (websocket) is a write: relayed where writes are allowed, refused on a host allowed for reading', async () => {
    const upgrade = (host: string, path: string): string =>
      `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\nping`;
    const ok = await exchange({
      connect: 'paths.example.test:443',
      sni: 'paths.example.test',
      send: upgrade('paths.example.test', '/ok/ws'),
      seconds: 2,
    });
    expect(ok.reply).toMatch(/^HTTP\/1\.1 101 Switching Protocols\r\n[^]*\r\n\r\nping$/);
    const refused = await exchange({
      connect: 'registry.example.test:443',
      sni: 'registry.example.test',
      send: upgrade('registry.example.test', '/ws'),
    });
    expect(refused.reply).toMatch(/^HTTP\/1\.1 403 /);
    expect(stand.seen.filter((x) => x.url === '/ws')).toEqual([]);
  });

  it('bytes that are not HTTP, through a CONNECT to a host allowed for reading, go nowhere', async () => {
    const r = await sh(
      task(),
      `python3 -c "
import os, socket
port = int(os.environ['HTTP_PROXY'].rsplit(':', 1)[1])
s = socket.create_connection(('127.0.0.1', port), 5)
s.sendall(b'CONNECT registry.example.test:443 HTTP/1.1\\r\\n\\r\\n')
print(s.recv(100).split(b'\\r\\n')[0].decode())
s.sendall(b'SSH-2.0-OpenSSH_9.2\\r\\n' + b'x' * 100)
s.settimeout(5)
print(repr(s.recv(100)))
"`,
    );
    expect(r.output).toBe("HTTP/1.1 200 Connection established\nb''\n");
    expect(
      log.lines.some((l) => /this connection is not HTTP/.test(String((l.obj as { reason?: string }).reason))),
    ).toBe(true);
  });

  it('an upstream certificate that does not verify is a 502 with the reason; the request goes nowhere', async () => {
    const r = await sh(task(), 'curl -sS https://wrong-name.test/never');
    expect(r.output).toMatch(
      /^tether egress proxy: wrong-name\.test:443's certificate could not be verified \(ERR_TLS_CERT_ALTNAME_INVALID\); the proxy trusts this machine's CA store and terminal\.local\.sandbox\.egress\.upstream_ca_file/,
    );
    expect(stand.seen.filter((x) => x.url === '/never')).toEqual([]);
  });

  it("a program that refuses the proxy's certificate (pinning, or a store of its own) fails, and the result says what to do", async () => {
    const r = await sh(task(), 'curl -sS --cacert ca.pem https://registry.example.test/pinned');
    expect(r.exit_code).not.toBe(0);
    expect(r.sandbox).toMatch(
      /the program refused the proxy's certificate for registry\.example\.test .*list the host in terminal\.local\.sandbox\.egress\.passthrough/,
    );
  });

  it('a passthrough host is never opened: allowed whole it is a tunnel, allowed for reading only it is refused', async () => {
    const r = await sh(
      task(),
      "curl -s -o /dev/null -w '%{http_code}\\n' https://pinned-open.example.test/ ; curl -fsS --cacert ca.pem https://pinned-open.example.test/p; " +
        "curl -s -o /dev/null -w '%{http_code}\\n' https://pinned.example.test/",
    );
    // Its own certificate (the stand-in's): not the proxy's, so only a client trusting it connects.
    expect(r.output).toMatch(/^000\nhello from pinned-open\.example\.test\/p \(0 bytes\)\n000\n$/);
    expect(r.sandbox).toMatch(/pinned\.example\.test:443 is not in terminal\.local\.sandbox\.egress\.allow/);
    expect(stand.seen.find((x) => x.url === '/p')?.headers).not.toHaveProperty('authorization');
  });

  it('a body larger than the proxy may hold streams through an allowed write and is never held whole', async () => {
    const mb = 512;
    let peak = process.memoryUsage().rss;
    const before = peak;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
    try {
      const r = await sh(
        task(),
        `head -c ${mb}M /dev/zero | curl -sS -T - -H 'Content-Type: application/octet-stream' https://paths.example.test/ok/huge; ` +
          `head -c 64M /dev/zero | curl -sS -o /dev/null -w '%{http_code}\\n' -T - https://registry.example.test/huge`,
      );
      expect(r.output).toBe(`hello from paths.example.test/ok/huge (${mb * 1024 * 1024} bytes)\n403\n`);
    } finally {
      clearInterval(sampler);
    }
    expect((peak - before) / 1024 / 1024).toBeLessThan(mb / 4);
    expect(arrived('PUT', '/huge')).toBe(0);
  }, 120_000);
});
