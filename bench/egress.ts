// Benchmark (not a test), part of `npm run bench:environments`: what the local sandbox's egress proxy adds to an HTTP
// request, against the same request straight to the same loopback server from outside the sandbox. One Node client
// program, run all ways: per request on a kept-alive connection (through a CONNECT tunnel, and as absolute-URI
// requests to the proxy, which opens an upstream connection per request), and per new connection (connect, for the
// proxy the CONNECT handshake, one request). Then HTTPS: the same through a CONNECT tunnel the proxy does not open (a
// host allowed whole: TLS end to end, today's path) against a connection the proxy reads (a host allowed for reading:
// TLS to the proxy with its CA's leaf, cached after the first, and the proxy's own TLS upstream). Traffic stays on
// 127.0.0.1 (egress.resolve); the HTTPS server's CA is made with openssl, as in the tests.
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseConfig } from '../src/config/config.js';
import { egressGate } from '../src/environments/egress/gate.js';
import { EgressSchema } from '../src/environments/egress/settings.js';
import { EnvironmentManager } from '../src/environments/manager.js';
import { makeCertificate } from '../test/support/egress-stand-in.js';
import { fmt, silent, summary } from './stats.js';

const REQUESTS = 400;
const CONNECTIONS = 200;

/**
 * The client: `node client.mjs MODE PORT N [PROXY_PORT] [HOST]` prints N latencies in ms as JSON. Modes: keep (N
 * requests on one connection; through a CONNECT tunnel when a proxy port is given), absolute (N requests on one
 * connection to the proxy, absolute-URI), fresh (a new connection per request; CONNECT first through the proxy);
 * keep-tls and fresh-tls the same over TLS (inside the CONNECT tunnel through a proxy), trusting SSL_CERT_FILE (the
 * sandbox's bundle, with the proxy's CA) and the server's own CA (bench-ca.pem).
 */
const CLIENT = String.raw`
import net from 'node:net';
import tls from 'node:tls';
import fs from 'node:fs';
const [mode, port, n, proxy] = process.argv.slice(2, 6).map((v, i) => (i === 0 ? v : Number(v)));
const HOST = process.argv[6] || 'bench.example.test';
const secure = mode.endsWith('-tls');
// One context for every connection, as a client that loads its trust store once per process does.
const context = secure ? tls.createSecureContext({ ca: [fs.readFileSync('bench-ca.pem', 'utf8'), ...(process.env.SSL_CERT_FILE ? [fs.readFileSync(process.env.SSL_CERT_FILE, 'utf8')] : [])] }) : undefined;
const open = () => new Promise((resolve) => {
  const s = net.connect(proxy || port, '127.0.0.1', () => resolve(s));
  s.on('error', (e) => { console.error(e.message); process.exit(1); });
  s.setNoDelay(true);
});
// Reads one response: headers, then content-length bytes (the server always sends it).
function response(s) {
  return new Promise((resolve) => {
    let buf = Buffer.alloc(0);
    const onData = (c) => {
      buf = Buffer.concat([buf, c]);
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      const m = /content-length: *(\d+)/i.exec(buf.subarray(0, end).toString());
      const need = end + 4 + (m ? Number(m[1]) : 0);
      if (buf.length >= need) { s.off('data', onData); resolve(buf.subarray(0, end).toString()); }
    };
    s.on('data', onData);
  });
}
async function tunnel(s) {
  const port = secure ? 443 : 80;
  s.write('CONNECT ' + HOST + ':' + port + ' HTTP/1.1\r\nHost: ' + HOST + ':' + port + '\r\n\r\n');
  const head = await new Promise((r) => s.once('data', (c) => r(c.toString())));
  if (!head.startsWith('HTTP/1.1 200')) throw new Error(head);
}
const wrap = (s) => new Promise((resolve, reject) => {
  const t = tls.connect({ socket: s, servername: HOST, secureContext: context, ALPNProtocols: ['http/1.1'] }, () => resolve(t));
  t.on('error', (e) => { console.error(e.message); process.exit(1); });
});
async function connection() {
  const s = await open();
  if (proxy && mode !== 'absolute') await tunnel(s);
  return secure ? wrap(s) : s;
}
const get = (target) => 'GET ' + target + ' HTTP/1.1\r\nHost: ' + HOST + '\r\n\r\n';
const out = [];
if (mode.startsWith('fresh')) {
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const s = await connection();
    s.write(get('/'));
    await response(s);
    out.push(performance.now() - t0);
    s.destroy();
  }
} else {
  const s = await connection();
  const target = mode === 'absolute' ? 'http://' + HOST + '/' : '/';
  for (let i = 0; i < n + 20; i++) {
    const t0 = performance.now();
    s.write(get(target));
    await response(s);
    if (i >= 20) out.push(performance.now() - t0);
  }
  s.destroy();
}
console.log(JSON.stringify(out));
`;

const median = (xs: number[]): number => summary(xs).median;

export async function benchEgress(cwd: string): Promise<void> {
  const answer = (_req: unknown, res: import('node:http').ServerResponse): void => {
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '3' });
    res.end('ok\n');
  };
  const server = createServer(answer);
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const tls = makeCertificate(cwd);
  writeFileSync(join(cwd, 'bench-ca.pem'), readFileSync(tls.cert));
  const secureServer = createHttpsServer({ cert: readFileSync(tls.cert), key: readFileSync(tls.key) }, answer);
  secureServer.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => secureServer.listen(0, '127.0.0.1', r));
  const securePort = (secureServer.address() as AddressInfo).port;
  const client = join(cwd, 'egress-bench-client.mjs');
  writeFileSync(client, CLIENT);
  egressGate().configure({
    policy: EgressSchema.parse({
      allow: ['bench.example.test', 'tunnel.example.test', { host: 'read.example.test', access: 'read' }],
      upstream_ca_file: tls.cert,
      resolve: {
        'bench.example.test': `127.0.0.1:${port}`,
        'tunnel.example.test': `127.0.0.1:${securePort}`,
        'read.example.test': `127.0.0.1:${securePort}`,
      },
    }),
    log: silent,
  });
  const manager = new EnvironmentManager({
    terminal: parseConfig({ terminal: { backend: 'local' } }).terminal,
    workerId: 'bench',
    log: silent,
  });
  const direct = async (mode: string, n: number, to = port, host = 'bench.example.test'): Promise<number[]> =>
    JSON.parse(
      (await promisify(execFile)('node', [client, mode, String(to), String(n), '0', host], { cwd })).stdout,
    ) as number[];
  try {
    await manager.use('bench-egress', { hostCwd: cwd }, async ({ env }) => {
      const proxied = async (mode: string, n: number, host = 'bench.example.test'): Promise<number[]> => {
        const r = await env.run({
          command: `node egress-bench-client.mjs ${mode} 0 ${n} "\${HTTP_PROXY##*:}" ${host}`,
          timeoutSeconds: 300,
        });
        if (r.exitCode !== 0) throw new Error(`the bench client failed in the sandbox: ${r.output}`);
        return JSON.parse(r.output.trim().split('\n').at(-1)!) as number[];
      };
      // Twice each way, alternating, so a burst of load on the machine does not land on one side only.
      const d1 = await direct('keep', REQUESTS);
      const p1 = await proxied('keep', REQUESTS);
      const a1 = await proxied('absolute', REQUESTS);
      const d2 = await direct('keep', REQUESTS);
      const p2 = await proxied('keep', REQUESTS);
      const a2 = await proxied('absolute', REQUESTS);
      const df1 = await direct('fresh', CONNECTIONS);
      const pf1 = await proxied('fresh', CONNECTIONS);
      const df2 = await direct('fresh', CONNECTIONS);
      const pf2 = await proxied('fresh', CONNECTIONS);
      const keep = { direct: median([...d1, ...d2]), tunnel: median([...p1, ...p2]), absolute: median([...a1, ...a2]) };
      const fresh = { direct: median([...df1, ...df2]), proxied: median([...pf1, ...pf2]) };
      console.log(
        `egress proxy  per request on a kept-alive connection (${2 * REQUESTS} each): direct loopback ${fmt(keep.direct, 3)} ms · ` +
          `through a CONNECT tunnel ${fmt(keep.tunnel, 3)} ms (+${fmt(keep.tunnel - keep.direct, 3)} ms, target < 1 ms) · ` +
          `absolute-URI to the proxy ${fmt(keep.absolute, 3)} ms (+${fmt(keep.absolute - keep.direct, 3)} ms)`,
        `\n              per new connection with one request (${2 * CONNECTIONS} each): direct ${fmt(fresh.direct, 3)} ms · ` +
          `through the proxy (connect, CONNECT, request) ${fmt(fresh.proxied, 3)} ms (+${fmt(fresh.proxied - fresh.direct, 3)} ms, target < 3 ms)`,
      );
      // HTTPS: a tunnel the proxy does not open (today's path) against a connection it reads. The first read
      // connection makes the host's leaf certificate; every measured one finds it cached.
      await proxied('fresh-tls', 3, 'read.example.test');
      const tk: number[][] = [];
      const rk: number[][] = [];
      const tf: number[][] = [];
      const rf: number[][] = [];
      // CPU time of this process (the proxy, and the HTTPS server, whose work is the same both ways) per request: the
      // difference is the proxy's own work, which a loaded machine's waiting for a core does not inflate.
      const cpu = { tk: 0, rk: 0, tf: 0, rf: 0 };
      const timed = async (into: number[][], key: keyof typeof cpu, mode: string, n: number, host: string) => {
        const before = process.cpuUsage();
        into.push(await proxied(mode, n, host));
        const used = process.cpuUsage(before);
        cpu[key] += (used.user + used.system) / 1000 / (2 * n);
      };
      const dk = await direct('keep-tls', REQUESTS, securePort, 'tunnel.example.test');
      for (let i = 0; i < 2; i += 1) {
        await timed(tk, 'tk', 'keep-tls', REQUESTS, 'tunnel.example.test');
        await timed(rk, 'rk', 'keep-tls', REQUESTS, 'read.example.test');
      }
      const dfk = await direct('fresh-tls', CONNECTIONS, securePort, 'tunnel.example.test');
      for (let i = 0; i < 2; i += 1) {
        await timed(tf, 'tf', 'fresh-tls', CONNECTIONS, 'tunnel.example.test');
        await timed(rf, 'rf', 'fresh-tls', CONNECTIONS, 'read.example.test');
      }
      const k = { direct: median(dk), tunnel: median(tk.flat()), read: median(rk.flat()) };
      const f = { direct: median(dfk), tunnel: median(tf.flat()), read: median(rf.flat()) };
      console.log(
        `egress HTTPS  per request on a kept-alive connection (${2 * REQUESTS} each): direct ${fmt(k.direct, 3)} ms · ` +
          `tunnel, not read ${fmt(k.tunnel, 3)} ms · read by the proxy ${fmt(k.read, 3)} ms ` +
          `(+${fmt(k.read - k.tunnel, 3)} ms over the tunnel, target <= 1 ms)`,
        `\n              per new connection with one request (${2 * CONNECTIONS} each, leaf cached): direct ${fmt(f.direct, 3)} ms · ` +
          `tunnel, not read ${fmt(f.tunnel, 3)} ms · read by the proxy ${fmt(f.read, 3)} ms ` +
          `(+${fmt(f.read - f.tunnel, 3)} ms over the tunnel, target <= 5 ms)`,
        `\n              worker CPU per request (proxy and server): kept-alive tunnel ${fmt(cpu.tk, 3)} ms · read ${fmt(cpu.rk, 3)} ms ` +
          `(+${fmt(cpu.rk - cpu.tk, 3)} ms) · new connection tunnel ${fmt(cpu.tf, 3)} ms · read ${fmt(cpu.rf, 3)} ms ` +
          `(+${fmt(cpu.rf - cpu.tf, 3)} ms)`,
      );
    });
  } finally {
    await manager.closeAll();
    server.close();
    secureServer.close();
  }
}
