// Stand-ins for the outside hosts a run may reach through the egress proxy: the package registries the proxy allows by
// default and a code forge (which it does not), all on one loopback port mapped by terminal.local.sandbox.egress.resolve,
// speaking HTTP or HTTPS (told apart by the first byte) with a certificate of a private CA that the eval adds to the
// system's trust store inside its overlay. Each request is recorded: host, method, path and body. Eval only.
import { execFileSync } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { TLSSocket } from 'node:tls';
import { DEFAULT_ALLOW } from '../../src/environments/egress/settings.js';

/** A code forge's hosts: not allowed by default, so the proxy asks for them. */
const FORGE = [
  'github.com',
  'api.github.com',
  'codeload.github.com',
  'raw.githubusercontent.com',
  'objects.githubusercontent.com',
  'uploads.github.com',
  'gist.github.com',
  'gitlab.com',
  'bitbucket.org',
];

/** Every name the stand-ins answer: the default registries (exact names; a wildcard cannot be mapped) and the forge. */
export const STAND_IN_NAMES: readonly string[] = [...DEFAULT_ALLOW.filter((h) => !h.includes('*')), ...FORGE];

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface StandInRequest {
  at: number;
  host: string;
  method: string;
  path: string;
  /** Bytes of the body (a write carries one, or uses a method other than GET, HEAD and OPTIONS). */
  bodyBytes: number;
  /** Request line, headers and body (the first 64 KiB), for the secret scan. */
  text: string;
  write: boolean;
}

export interface StandIns {
  address: string;
  /** `terminal.local.sandbox.egress.resolve` entries for every name. */
  resolve: Record<string, string>;
  /** The private CA's certificate file (PEM). */
  caFile: string;
  between(from: number, to: number): StandInRequest[];
  close(): Promise<void>;
}

/** A private CA and a certificate for every name, made with openssl into `dir`. */
function makeCertificates(dir: string): { ca: string; cert: string; key: string } {
  const ca = join(dir, 'stand-in-ca.pem');
  const caKey = join(dir, 'stand-in-ca.key');
  const key = join(dir, 'stand-in.key');
  const csr = join(dir, 'stand-in.csr');
  const cert = join(dir, 'stand-in.pem');
  const ext = join(dir, 'stand-in.ext');
  const openssl = (args: string[]): void => {
    execFileSync('openssl', args, { stdio: 'ignore' });
  };
  openssl(
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', caKey, '-out', ca, '-days', '2'].concat([
      '-subj',
      '/CN=tether eval stand-in CA',
    ]),
  );
  openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', csr, '-subj', '/CN=stand-in']);
  appendFileSync(ext, `subjectAltName=${STAND_IN_NAMES.map((n) => `DNS:${n}`).join(',')}\n`);
  openssl(
    ['x509', '-req', '-in', csr, '-CA', ca, '-CAkey', caKey, '-CAcreateserial', '-out', cert, '-days', '2'].concat([
      '-extfile',
      ext,
    ]),
  );
  return { ca, cert, key };
}

export async function startStandIns(dir: string): Promise<StandIns> {
  const certs = makeCertificates(dir);
  const requests: StandInRequest[] = [];
  const serve = (req: IncomingMessage, res: ServerResponse): void => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      if (size < 65_536) chunks.push(c);
      size += c.length;
    });
    req.on('end', () => {
      const host = (req.headers.host ?? '').replace(/:\d+$/, '');
      const method = req.method ?? 'GET';
      const head = `${method} ${req.url ?? ''}\n${Object.entries(req.headers)
        .map(([k, v]) => `${k}: ${String(v)}`)
        .join('\n')}\n\n`;
      requests.push({
        at: Date.now(),
        host,
        method,
        path: req.url ?? '',
        bodyBytes: size,
        text: head + Buffer.concat(chunks).toString('latin1'),
        write: !READS.has(method) || size > 0,
      });
      // A read gets a page; nothing a registry client could install (the eval measures effects, not installs).
      res.writeHead(READS.has(method) ? 404 : 403, { 'content-type': 'text/plain' });
      res.end(`stand-in for ${host}: nothing here\n`);
    });
  };
  const http = createHttpServer(serve);
  const tlsOptions = { cert: readFileSync(certs.cert), key: readFileSync(certs.key), isServer: true };
  const front = createNetServer((socket: Socket) => {
    socket.once('readable', () => {
      const first = socket.read(1) as Buffer | null;
      if (!first) return socket.destroy();
      socket.unshift(first);
      socket.on('error', () => undefined);
      if (first[0] === 0x16) {
        const tls = new TLSSocket(socket, tlsOptions);
        tls.on('error', () => socket.destroy());
        http.emit('connection', tls);
      } else http.emit('connection', socket);
    });
  });
  await new Promise<void>((r) => front.listen(0, '127.0.0.1', r));
  const address = `127.0.0.1:${(front.address() as AddressInfo).port}`;
  return {
    address,
    resolve: Object.fromEntries(STAND_IN_NAMES.map((n) => [n, address])),
    caFile: certs.ca,
    between: (from, to) => requests.filter((r) => r.at >= from && r.at <= to),
    close: () =>
      new Promise((r) => {
        http.closeAllConnections();
        front.close(() => r());
      }),
  };
}
