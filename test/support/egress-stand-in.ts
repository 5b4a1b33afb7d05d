// Stand-ins for outside hosts in the egress tests: one HTTP server on 127.0.0.1 that answers every host name
// (mapped to it by terminal.local.sandbox.egress.resolve) and counts the requests each name got. Traffic stays on
// loopback.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join, normalize } from 'node:path';

export interface StandIn {
  port: number;
  /** `127.0.0.1:port`, as egress.resolve wants it. */
  address: string;
  /** Requests seen, by the Host header's name (port dropped). */
  hits(host: string): number;
  total(): number;
  close(): Promise<void>;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const hello: Handler = (req, res) => {
  res.writeHead(200, { 'content-type': 'text/plain' });
  res.end(`hello from ${(req.headers.host ?? '').replace(/:\d+$/, '')}${req.url ?? ''}\n`);
};

/** An HTTP stand-in (or HTTPS with `tls`) answering every name with `handler` (default: "hello from HOST/PATH"). */
export async function startStandIn(handler: Handler = hello, tls?: { cert: string; key: string }): Promise<StandIn> {
  const hits = new Map<string, number>();
  const serve: Handler = (req, res) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    hits.set(host, (hits.get(host) ?? 0) + 1);
    handler(req, res);
  };
  const server: Server = tls
    ? createHttpsServer({ cert: readFileSync(tls.cert), key: readFileSync(tls.key) }, serve)
    : createServer(serve);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    address: `127.0.0.1:${port}`,
    hits: (h) => hits.get(h) ?? 0,
    total: () => [...hits.values()].reduce((a, b) => a + b, 0),
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** `resolve` entries mapping every name to the stand-in. */
export function resolveAll(names: string[], standIn: StandIn): Record<string, string> {
  return Object.fromEntries(names.map((n) => [n, standIn.address]));
}

/** A self-signed certificate for `*.example.test` (its own CA), made with openssl into `dir`. */
export function makeCertificate(dir: string): { cert: string; key: string } {
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
    ].concat(['-addext', 'subjectAltName=DNS:*.example.test,DNS:example.test']),
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
