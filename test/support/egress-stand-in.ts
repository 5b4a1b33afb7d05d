// Stand-ins for outside hosts in the egress tests: one HTTP server on 127.0.0.1 that answers every host name
// (mapped to it by terminal.local.sandbox.egress.resolve) and counts the requests each name got. Traffic stays on
// loopback.
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { join, normalize } from 'node:path';

export interface StandIn {
  port: number;
  /** `127.0.0.1:port`, as egress.resolve wants it. */
  address: string;
  /** Requests seen, by the Host header's name (port dropped). */
  hits(host: string): number;
  total(): number;
  /** Every request seen: its host (Host header, port dropped), method, target and headers. */
  seen: { host: string; method: string; url: string; headers: IncomingMessage['headers'] }[];
  /** Connections accepted (TLS ones once their handshake is done). */
  connections(): number;
  close(): Promise<void>;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const hello: Handler = (req, res) => {
  res.writeHead(200, { 'content-type': 'text/plain' });
  res.end(`hello from ${(req.headers.host ?? '').replace(/:\d+$/, '')}${req.url ?? ''}\n`);
};

/**
 * An HTTP stand-in (or HTTPS with `tls`) answering every name with `handler` (default: "hello from HOST/PATH");
 * `upgrade` takes Upgrade requests (a websocket), which are refused without it.
 */
export async function startStandIn(
  handler: Handler = hello,
  tls?: { cert: string; key: string },
  upgrade?: (req: IncomingMessage, socket: Duplex, head: Buffer) => void,
  /** Closes a connection that stays quiet this long (a server that drops idle clients); none by default. */
  idleMs?: number,
): Promise<StandIn> {
  const hits = new Map<string, number>();
  const seen: StandIn['seen'] = [];
  let connections = 0;
  const serve: Handler = (req, res) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    hits.set(host, (hits.get(host) ?? 0) + 1);
    seen.push({ host, method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    handler(req, res);
  };
  const server: Server = tls
    ? createHttpsServer({ cert: readFileSync(tls.cert), key: readFileSync(tls.key) }, serve)
    : createServer(serve);
  server.on(tls ? 'secureConnection' : 'connection', () => (connections += 1));
  if (idleMs !== undefined)
    server.on('connection', (s: Duplex & { setTimeout(ms: number, cb: () => void): void }) =>
      s.setTimeout(idleMs, () => s.destroy()),
    );
  if (upgrade)
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      const host = (req.headers.host ?? '').replace(/:\d+$/, '');
      seen.push({ host, method: req.method ?? '', url: req.url ?? '', headers: req.headers });
      upgrade(req, socket, head);
    });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    address: `127.0.0.1:${port}`,
    hits: (h) => hits.get(h) ?? 0,
    total: () => [...hits.values()].reduce((a, b) => a + b, 0),
    seen,
    connections: () => connections,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/**
 * A git forge over git's smart HTTP protocol: git-http-backend (git's own CGI program) serves the bare repositories
 * under `root`. A push (git-receive-pack) is taken only with `Authorization: ${pushAuth}` when that is given, as a
 * forge would; without it, pushes are open.
 */
export function gitSmartHttp(root: string, pushAuth?: string, fallback: Handler = hello): Handler {
  return (req, res) => {
    const url = new URL(req.url ?? '/', 'https://forge');
    if (!/\.git(\/|$)/.test(url.pathname)) return fallback(req, res);
    const pushing =
      url.pathname.endsWith('/git-receive-pack') || url.searchParams.get('service') === 'git-receive-pack';
    if (pushing && pushAuth !== undefined && req.headers.authorization !== pushAuth) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="forge"', 'content-type': 'text/plain' });
      return res.end('authentication required\n');
    }
    const cgi = spawn('/usr/lib/git-core/git-http-backend', [], {
      env: {
        PATH: process.env.PATH,
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        PATH_INFO: url.pathname,
        QUERY_STRING: url.search.slice(1),
        REQUEST_METHOD: req.method ?? 'GET',
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: req.headers['content-encoding'] } : {}),
        ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
        REMOTE_USER: 'pusher',
        REMOTE_ADDR: '127.0.0.1',
      },
    });
    req.pipe(cgi.stdin);
    let head = Buffer.alloc(0);
    let started = false;
    cgi.stdout.on('data', (c: Buffer) => {
      if (started) return void res.write(c);
      head = Buffer.concat([head, c]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      started = true;
      let status = 200;
      const headers: Record<string, string> = {};
      for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
        const [k, ...v] = line.split(':');
        if (k!.toLowerCase() === 'status') status = Number(v.join(':').trim().split(' ')[0]);
        else headers[k!] = v.join(':').trim();
      }
      res.writeHead(status, headers);
      res.write(head.subarray(end + 4));
    });
    cgi.stdout.on('end', () => res.end());
    cgi.on('error', () => res.destroy());
  };
}

/** `resolve` entries mapping every name to the stand-in. */
export function resolveAll(names: string[], standIn: StandIn): Record<string, string> {
  return Object.fromEntries(names.map((n) => [n, standIn.address]));
}

/** A self-signed certificate for `*.example.test` and `names` (its own CA), made with openssl into `dir`. */
export function makeCertificate(dir: string, names: string[] = []): { cert: string; key: string } {
  const key = join(dir, 'stand-in.key');
  const cert = join(dir, 'ca.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '2',
      '-subj',
      '/CN=example.test',
    ].concat([
      '-addext',
      `subjectAltName=${['*.example.test', 'example.test', ...names].map((n) => `DNS:${n}`).join(',')}`,
    ]),
    { stdio: 'ignore' },
  );
  return { cert, key };
}

/**
 * The outside services the tools test needs, on one server: `/hello`; a git repository over git's dumb HTTP protocol
 * (static files of a bare repository) under `/repo.git/`; a PyPI simple index with one wheel (`demo` 1.0); an npm
 * registry document for `demo`.
 */
export function registries(bareRepo: string, wheel: { name: string; bytes: Buffer }): Handler {
  const sha256 = createHash('sha256').update(wheel.bytes).digest('hex');
  return (req, res) => {
    const url = new URL(req.url ?? '/', 'https://stand-in');
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    const send = (status: number, type: string, body: string | Buffer): void => {
      res.writeHead(status, { 'content-type': type });
      res.end(body);
    };
    if (url.pathname.startsWith('/repo.git/')) {
      const file = normalize(join(bareRepo, url.pathname.slice('/repo.git/'.length)));
      if (!file.startsWith(bareRepo) || !existsSync(file) || !statSync(file).isFile())
        return send(404, 'text/plain', 'no such file\n');
      return send(200, 'application/octet-stream', readFileSync(file));
    }
    if (url.pathname === '/simple/demo/')
      return send(
        200,
        'text/html',
        `<html><body><a href="https://${host}/files/${wheel.name}#sha256=${sha256}">${wheel.name}</a></body></html>`,
      );
    if (url.pathname === `/files/${wheel.name}`) return send(200, 'application/octet-stream', wheel.bytes);
    if (url.pathname === '/demo')
      return send(
        200,
        'application/json',
        JSON.stringify({
          name: 'demo',
          description: 'a stand-in package',
          'dist-tags': { latest: '1.0.0' },
          versions: {
            '1.0.0': {
              name: 'demo',
              version: '1.0.0',
              dist: { tarball: `https://${host}/demo/-/demo-1.0.0.tgz`, shasum: '0'.repeat(40) },
            },
          },
          time: { '1.0.0': '2026-01-01T00:00:00.000Z' },
        }),
      );
    return hello(req, res);
  };
}
