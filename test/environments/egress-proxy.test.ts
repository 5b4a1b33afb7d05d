// The egress proxy for real, from inside the local sandbox (bwrap, the task's network namespace): real tools (curl,
// git, pip, npm) through it against stand-ins for outside hosts, and the ways an attacker inside would try to get
// past it: smuggled requests, this machine's addresses in every spelling, names that resolve here, SOCKS literals,
// malformed SOCKS and HTTP. Outside hosts are names mapped by egress.resolve to stand-ins on 127.0.0.1; nothing
// leaves loopback. No run is asked here (no worker): hosts outside egress.allow are refused saying so.
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { hostname, networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { environmentManager } from '../../src/environments/current.js';
import { call, configure, dir, type Result } from '../support/local-sandbox.js';
import { until } from '../support/cli.js';
import { makeCertificate, registries, resolveAll, startStandIn, type StandIn } from '../support/egress-stand-in.js';
import type { recordingLogger } from '../support/recording-logger.js';

const cwd = dir('tether-egress-proxy-');
let n = 0;
const task = (): string => `egress-${process.pid}-${++n}`;
const sh = (taskId: string, command: string): Promise<Result> => call('terminal', taskId, cwd, { command });

let http: StandIn;
let https: StandIn;
/** A server on this machine's loopback that must never see a connection (the Temporal dev server's place). */
let forbidden: { server: Server; port: number; connections: number };
/** An outside host that answers with a status line Node's server would refuse to write (a DEL in it). */
let rude: Server;
let log: ReturnType<typeof recordingLogger>;
const NAMES = ['plain', 'secure', 'git', 'pypi', 'npm', 'blocked', 'other'].map((h) => `${h}.example.test`);

beforeAll(async () => {
  makeCertificate(cwd);
  // A bare repository with one commit, served over git's dumb HTTP protocol.
  const git = (args: string[], at = cwd): string =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.test', ...args], {
      cwd: at,
      encoding: 'utf8',
    });
  git(['init', '-q', 'origin']);
  git(['commit', '-q', '--allow-empty', '-m', 'first commit'], join(cwd, 'origin'));
  git(['clone', '-q', '--bare', 'origin', 'served.git']);
  git(['update-server-info'], join(cwd, 'served.git'));
  // A minimal wheel (a zip with the package and its metadata), made by Python's zipfile.
  const wheel = join(cwd, 'demo-1.0-py3-none-any.whl');
  execFileSync('python3', [
    '-c',
    `import zipfile
z = zipfile.ZipFile(${JSON.stringify(wheel)}, 'w')
z.writestr('demo/__init__.py', '')
z.writestr('demo-1.0.dist-info/METADATA', 'Metadata-Version: 2.1\\nName: demo\\nVersion: 1.0\\n')
z.writestr('demo-1.0.dist-info/WHEEL', 'Wheel-Version: 1.0\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n')
z.writestr('demo-1.0.dist-info/RECORD', '')
z.close()`,
  ]);
  http = await startStandIn();
  https = await startStandIn(
    registries(join(cwd, 'served.git'), { name: 'demo-1.0-py3-none-any.whl', bytes: readFileSync(wheel) }),
    { cert: join(cwd, 'ca.pem'), key: join(cwd, 'stand-in.key') },
  );
  forbidden = { server: createServer((s) => (forbidden.connections++, s.end('inside\n'))), port: 0, connections: 0 };
  await new Promise<void>((r) => forbidden.server.listen(0, '127.0.0.1', r));
  forbidden.port = (forbidden.server.address() as { port: number }).port;
  rude = createServer((s) => s.once('data', () => s.end('HTTP/1.1 200 O\x7fK\r\nContent-Length: 2\r\n\r\nhi')));
  await new Promise<void>((r) => rude.listen(0, '127.0.0.1', r));
  const rudeAt = `127.0.0.1:${(rude.address() as { port: number }).port}`;
  log = await configure({
    sandbox: {
      egress: {
        // The machine's own name and loopback itself are listed too: the address check comes first all the same.
        allow: ['*.example.test:*', '127.0.0.1:*', '[::1]:*', `${hostname()}:*`],
        deny: ['blocked.example.test'],
        resolve: {
          'rude.example.test': rudeAt,
          ...resolveAll(['plain.example.test', 'blocked.example.test', 'other.example.test'], http),
          ...resolveAll(NAMES.slice(1, 5), https),
        },
      },
    },
  });
});

afterAll(async () => {
  await environmentManager().closeAll();
  await http.close();
  await https.close();
  forbidden.server.close();
  rude.close();
});

/** A Python program inside the sandbox: sends `bytes` to the proxy (the port in HTTP_PROXY), prints what came back. */
function exchange(bytes: Buffer | string, seconds = 10): string {
  const hex = Buffer.from(bytes).toString('hex');
  return `python3 -c "
import os, socket, sys
port = int(os.environ['HTTP_PROXY'].rsplit(':', 1)[1])
s = socket.create_connection(('127.0.0.1', port), 5)
s.sendall(bytes.fromhex('${hex}'))
s.settimeout(${seconds})
out = b''
try:
  while True:
    c = s.recv(65536)
    if not c: break
    out += c
except socket.timeout: out += b'<timeout>'
sys.stdout.write(out.hex())
"`;
}

async function send(bytes: Buffer | string, taskId = task(), seconds = 10): Promise<Buffer> {
  const r = await sh(taskId, exchange(bytes, seconds));
  expect(r.exit_code, r.output).toBe(0);
  return Buffer.from(r.output!.trim(), 'hex');
}

/** A SOCKS5 greeting and CONNECT request for an address of type `atyp` (1 IPv4, 3 name, 4 IPv6). */
function socks(atyp: 1 | 3 | 4, address: Buffer | string, port: number): Buffer {
  const addr =
    atyp === 3
      ? Buffer.concat([Buffer.from([Buffer.byteLength(address)]), Buffer.from(address)])
      : Buffer.from(address);
  const p = Buffer.alloc(2);
  p.writeUInt16BE(port);
  return Buffer.concat([Buffer.from([5, 1, 0]), Buffer.from([5, 1, 0, atyp]), addr, p]);
}

const [temporalHost, temporalPort] = inject('temporalAddress').split(':') as [string, string];
const outsideAddress = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;

describe('real tools through the egress proxy', () => {
  it('curl over HTTPS (CONNECT), over HTTP (absolute URI) and over SOCKS5 with the proxy resolving the name', async () => {
    const r = await sh(
      task(),
      'curl -fsS --cacert ca.pem https://secure.example.test/hello && curl -fsS http://plain.example.test/p && ' +
        'curl -fsS --proxy "$ALL_PROXY" http://plain.example.test/socks',
    );
    expect(r.output).toBe(
      'hello from secure.example.test/hello\nhello from plain.example.test/p\nhello from plain.example.test/socks\n',
    );
    // One log line per connection, written when it closes: host, port, how it asked, bytes each way, what allowed it.
    const allowed = (via: string): boolean =>
      log.lines.some((l) => l.msg === 'egress' && (l.obj as { via?: string; decision?: string }).via === via);
    await until('the three connections are logged', () => ['connect', 'http', 'socks'].every(allowed), 10_000);
    const lines = log.lines.filter(
      (l) => l.msg === 'egress' && (l.obj as { decision?: string }).decision === 'allowed',
    );
    expect(lines.map((l) => l.obj)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          host: 'secure.example.test',
          port: 443,
          via: 'connect',
          by: 'egress.allow: *.example.test:*',
          up: expect.any(Number),
          down: expect.any(Number),
        }),
        expect.objectContaining({ host: 'plain.example.test', port: 80, via: 'http' }),
        expect.objectContaining({ host: 'plain.example.test', port: 80, via: 'socks' }),
      ]),
    );
  });

  it("a background process's connection is attributed to it in the log", async () => {
    const t = task();
    const started = await call('terminal', t, cwd, {
      command: 'sleep 1; curl -fsS http://plain.example.test/background',
      background: true,
    });
    await until(
      'the background connection is logged',
      () => log.lines.some((l) => (l.obj as { command?: string }).command?.includes('/background')),
      30_000,
    );
    const line = log.lines.find((l) => (l.obj as { command?: string }).command?.includes('/background'))!;
    expect(line.obj).toMatchObject({
      host: 'plain.example.test',
      decision: 'allowed',
      command: `sleep 1; curl -fsS http://plain.example.test/background  (background process ${String(started.process_id)})`,
    });
  });

  it('a connection made while a foreground command runs names the background processes too', async () => {
    const t = task();
    const started = await call('terminal', t, cwd, {
      command: 'sleep 1; curl -fsS http://plain.example.test/from-background',
      background: true,
    });
    await sh(t, 'sleep 4; echo innocent');
    const line = log.lines.find((l) => (l.obj as { command?: string }).command?.includes('/from-background'));
    expect(line?.obj).toMatchObject({
      host: 'plain.example.test',
      command: `sleep 4; echo innocent\nsleep 1; curl -fsS http://plain.example.test/from-background  (background process ${String(started.process_id)})`,
    });
  });

  it('git clone over HTTPS', async () => {
    const r = await sh(
      task(),
      'GIT_SSL_CAINFO=$PWD/ca.pem git clone -q https://git.example.test/repo.git cloned-1 && git -C cloned-1 log --format=%s',
    );
    expect(r.output).toBe('first commit\n');
  });

  it('pip download from an HTTPS index', async () => {
    const r = await sh(
      task(),
      // requests lets REQUESTS_CA_BUNDLE (set on this machine) win over pip's --cert: both name the stand-in's CA.
      'REQUESTS_CA_BUNDLE=$PWD/ca.pem python3 -m pip download -q --no-deps --disable-pip-version-check --no-cache-dir --cert $PWD/ca.pem ' +
        '--index-url https://pypi.example.test/simple/ -d dl demo==1.0 && ls dl',
    );
    expect(r.output).toBe('demo-1.0-py3-none-any.whl\n');
  });

  it('npm view against an HTTPS registry', async () => {
    const r = await sh(
      task(),
      'npm_config_cache=/tmp/npm-cache npm_config_update_notifier=false npm view demo version --registry https://npm.example.test/ --cafile ca.pem',
    );
    expect(r.output).toBe('1.0.0\n');
  });

  it('a denied host and a host nobody can be asked about fail, and the result says why', async () => {
    const r = await sh(task(), 'curl -fsS https://blocked.example.test/ ; curl -fsS http://pypi.org/simple/');
    expect(r.exit_code).not.toBe(0);
    expect(r.sandbox).toMatch(
      /egress proxy refused: blocked\.example\.test:443 is in terminal\.local\.sandbox\.egress\.deny/,
    );
    expect(r.sandbox).toMatch(
      /pypi\.org:80 is not in terminal\.local\.sandbox\.egress\.allow, and there is no run to ask/,
    );
    expect(http.hits('blocked.example.test')).toBe(0);
  });
});

describe('attacks on the egress proxy from inside the sandbox', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.1', 'numeric address'],
    ['2130706433', 'numeric address'],
    ['0x7f000001', 'numeric address'],
    ['0177.0.0.1', 'numeric address'],
    ['0.0.0.0', 'unspecified'],
    ['[::1]', 'loopback'],
    ['[0:0:0:0:0:0:0:1]', 'loopback'],
    ['[::ffff:127.0.0.1]', 'loopback'],
    ['[::ffff:7f00:1]', 'loopback'],
    ['[::127.0.0.1]', 'IPv4-compatible'],
    ['[fe80::1%25lo]', 'zone id'],
    ['localhost', 'localhost is this machine'],
    ['LocalHost.', 'localhost is this machine'],
    ['169.254.169.254', 'link-local'],
    // The machine's own name: allowed by name above, and it resolves (through /etc/hosts) to this machine.
    [hostname(), 'resolves to'],
  ])('CONNECT %s to a port on this machine is refused (%s)', async (host, why) => {
    const port = host === '169.254.169.254' ? 80 : forbidden.port;
    const reply = (await send(`CONNECT ${host}:${port} HTTP/1.1\r\nHost: ${host}:${port}\r\n\r\n`)).toString();
    expect(reply).toMatch(/^HTTP\/1\.1 (400|403) /);
    expect(reply).toMatch(new RegExp(why));
    expect(forbidden.connections).toBe(0);
  });

  it("CONNECT to the Temporal dev server, the worker's stand-in's real port and this machine's other address is refused", async () => {
    for (const target of [
      `${temporalHost}:${temporalPort}`,
      `127.0.0.1:${http.port}`,
      ...(outsideAddress ? [`${outsideAddress}:${forbidden.port}`] : []),
    ]) {
      const reply = (await send(`CONNECT ${target} HTTP/1.1\r\n\r\n`)).toString();
      expect(reply, target).toMatch(/^HTTP\/1\.1 403 .*\r\n\r\ntether egress proxy: .*(loopback|this machine)/s);
    }
    expect(http.total()).toBe(http.hits('plain.example.test') + http.hits('other.example.test'));
  });

  it('SOCKS5 with this machine as an IPv4, IPv6 or name literal is refused with "not allowed"', async () => {
    const requests = [
      socks(1, Buffer.from([127, 0, 0, 1]), forbidden.port),
      socks(4, Buffer.from('00000000000000000000000000000001', 'hex'), forbidden.port),
      socks(4, Buffer.from('00000000000000000000ffff7f000001', 'hex'), forbidden.port),
      socks(3, '127.0.0.1', forbidden.port),
      socks(3, 'localhost', forbidden.port),
      socks(3, hostname(), forbidden.port),
      ...(outsideAddress ? [socks(1, Buffer.from(outsideAddress.split('.').map(Number)), forbidden.port)] : []),
    ];
    for (const r of requests) {
      const reply = await send(r);
      // Method accepted (05 00), then the CONNECT refused: not allowed (02) or an address it will not read (08).
      expect(reply.subarray(0, 2)).toEqual(Buffer.from([5, 0]));
      expect([2, 8]).toContain(reply[3]);
    }
    expect(forbidden.connections).toBe(0);
  });

  it('request smuggling: Content-Length with Transfer-Encoding is refused; a request hidden in a body goes nowhere', async () => {
    const smuggled = `GET http://other.example.test/smuggled HTTP/1.1\r\nHost: other.example.test\r\n\r\n`;
    const reply = await send(
      `POST http://plain.example.test/ HTTP/1.1\r\nHost: plain.example.test\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n${smuggled}`,
    );
    expect(reply.toString()).toMatch(/^HTTP\/1\.1 400 /);
    const te = await send(
      `POST http://plain.example.test/ HTTP/1.1\r\nHost: plain.example.test\r\nTransfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n${smuggled}`,
    );
    expect(te.toString()).toMatch(/^HTTP\/1\.1 400 /);
    expect(http.hits('other.example.test')).toBe(0);
  });

  it('each request on a kept-alive connection is gated on its own host, and the Host header is the URL’s', async () => {
    const before = http.hits('plain.example.test');
    const reply = (
      await send(
        'GET http://plain.example.test/one HTTP/1.1\r\nHost: blocked.example.test\r\n\r\n' +
          'GET http://blocked.example.test/two HTTP/1.1\r\nHost: plain.example.test\r\nConnection: close\r\n\r\n',
      )
    ).toString();
    expect(reply).toMatch(/hello from plain\.example\.test\/one/);
    expect(reply).toMatch(/HTTP\/1\.1 403 [^]*blocked\.example\.test:80 is in terminal\.local\.sandbox\.egress\.deny/);
    expect(http.hits('plain.example.test')).toBe(before + 1);
    expect(http.hits('blocked.example.test')).toBe(0);
  });

  it('malformed SOCKS and HTTP get a refusal or a closed connection; the proxy goes on serving', async () => {
    const bad: (Buffer | string)[] = [
      Buffer.from([5, 0]), // no methods
      Buffer.from([5, 1, 2]), // only username/password offered
      Buffer.from([5, 1, 0, 5, 2, 0, 1, 127, 0, 0, 1, 0, 80]), // BIND
      Buffer.from([5, 1, 0, 5, 3, 0, 1, 0, 0, 0, 0, 0, 53]), // UDP ASSOCIATE
      Buffer.from([5, 1, 0, 5, 1, 0, 9, 1, 2, 3]), // unknown address type
      Buffer.from([5, 1, 0, 5, 1, 0, 3, 0, 0, 80]), // empty name
      Buffer.concat([Buffer.from([5, 1, 0, 5, 1, 0, 3, 9]), Buffer.from('a\nb.c\0d.e'), Buffer.from([0, 80])]), // control bytes
      Buffer.from([5, 1, 0, 5, 1, 0, 1, 1, 2]), // cut short
      Buffer.from([4, 1, 0, 80, 127, 0, 0, 1, 0]), // SOCKS4
      Buffer.alloc(4096, 5), // a flood of 5s
      'garbage\r\n\r\n',
      'GET / HTTP/1.1\r\nHost: x\r\n\r\n', // origin-form: not a proxy request
      'GET https://secure.example.test/ HTTP/1.1\r\nHost: secure.example.test\r\n\r\n',
      'GET http://plain.example.test/ HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nHost: plain.example.test\r\n\r\n',
      'CONNECT plain.example.test HTTP/1.1\r\n\r\n',
      'CONNECT plain.example.test:0 HTTP/1.1\r\n\r\n',
      'CONNECT plain.example.test:99999 HTTP/1.1\r\n\r\n',
      'CONNECT blocked.example.test:80\r\n\r\n',
      `GET http://plain.example.test/ HTTP/1.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      'GET http://plain.example.test/a\r\nb HTTP/1.1\r\n\r\n',
      'GET http://plain.example.test:99999/ HTTP/1.1\r\n\r\n',
      'GET http://[::1]:80/ HTTP/1.1\r\n\r\n',
      // An allowed name as userinfo: the host is what follows the @.
      `GET http://plain.example.test@127.0.0.1:${forbidden.port}/ HTTP/1.1\r\nHost: plain.example.test\r\n\r\n`,
    ];
    const t = task();
    for (const b of bad) {
      // A closed connection or a refusal is the answer; one that waits for more bytes is cut after 3 s.
      const reply = (await send(b, t, 3)).toString('latin1');
      // Never a success, never a stack trace.
      expect(reply).not.toMatch(/^HTTP\/1\.1 2|hello from|\bat .*\.js:\d+/);
    }
    expect(forbidden.connections).toBe(0);
    // The same task's proxy still serves.
    expect((await sh(t, 'curl -fsS http://plain.example.test/after')).output).toBe(
      'hello from plain.example.test/after\n',
    );
  });

  it('an outside host answering with a status line that cannot be passed on gets the client a 502, not a crash', async () => {
    const t = task();
    const r = await sh(t, 'curl -sS -o /dev/null -w "%{http_code}" http://rude.example.test/');
    expect(r.output).toBe('502');
    expect((await sh(t, 'curl -fsS http://plain.example.test/still')).output).toBe(
      'hello from plain.example.test/still\n',
    );
  });

  it('a program that ignores the proxy has no network at all: no DNS, no route, and the result says why', async () => {
    const r = await sh(
      task(),
      'env -u http_proxy -u HTTP_PROXY -u https_proxy -u HTTPS_PROXY -u ALL_PROXY -u all_proxy curl -sS --max-time 10 http://plain.example.test/ ; ' +
        `curl -sS --noproxy '*' --max-time 10 http://${outsideAddress ?? '192.0.2.1'}:${http.port}/`,
    );
    expect(r.output).toMatch(/Could not resolve host: plain\.example\.test/);
    expect(r.output).toMatch(/(Network is unreachable|Couldn't connect)/);
    expect(r.sandbox).toMatch(/no direct network: programs reach the outside only through tether's egress proxy/);
  });
});
