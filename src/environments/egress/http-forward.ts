// The HTTP side of the egress proxy: a Node HTTP server that is never listened on, fed the task's connections. Its
// parser (llhttp) refuses malformed and ambiguous requests (Content-Length with Transfer-Encoding, bad chunking) with
// a 400; each request is gated on its own host, so a kept-alive connection cannot reuse one approval for another
// host; CONNECT becomes a tunnel. Worker-only.
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { EgressVia } from '../../common/egress-types.js';
import { parseAuthority, target, type Target } from './target.js';

/** What the task's proxy does with a target: a connected socket, or an HTTP status and the reason. */
export type Reach = (
  t: Target,
  via: EgressVia,
  client: Duplex,
) => Promise<{ socket: Socket } | { status: number; reason: string }>;

/** Headers that belong to one hop (RFC 9110 7.6.1) and the proxy's own: never passed on. */
const HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
]);

/** Raw header pairs without hop-by-hop ones (and those the Connection header names). */
function endToEnd(raw: string[]): string[] {
  const named = new Set<string>();
  for (let i = 0; i < raw.length; i += 2)
    if (raw[i]!.toLowerCase() === 'connection')
      for (const n of raw[i + 1]!.split(',')) named.add(n.trim().toLowerCase());
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (!HOP.has(name) && !named.has(name)) out.push(raw[i]!, raw[i + 1]!);
  }
  return out;
}

export function refusal(status: number, reason: string, name = 'tether egress proxy'): string {
  const text = `${name}: ${reason}\n`;
  const title = { 400: 'Bad Request', 403: 'Forbidden', 501: 'Not Implemented', 502: 'Bad Gateway' }[status] ?? 'Error';
  return `HTTP/1.1 ${status} ${title}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`;
}

function refuseAs(res: ServerResponse, status: number, reason: string, name: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  try {
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
    res.end(`${name}: ${reason}\n`);
  } catch {
    // A response left unusable by an upstream answer Node refused to write: the connection goes instead.
    res.destroy();
  }
}

/** Pipes both ways until both sides have ended (half-closes kept), and destroys both on an error of either. */
export function tunnel(a: Duplex, b: Duplex): void {
  const stop = (): void => {
    a.destroy();
    b.destroy();
  };
  a.on('error', stop);
  b.on('error', stop);
  a.on('close', () => b.destroy());
  b.on('close', () => a.destroy());
  a.pipe(b);
  b.pipe(a);
}

/** One request in absolute form (`GET http://host/path`) to its host, with its own connection there. */
async function forward(req: IncomingMessage, res: ServerResponse, reach: Reach, name: string): Promise<void> {
  const refuse = (r: ServerResponse, status: number, reason: string): void => refuseAs(r, status, reason, name);
  let url: URL;
  try {
    url = new URL(req.url ?? '');
  } catch {
    return refuse(
      res,
      400,
      `${JSON.stringify((req.url ?? '').slice(0, 200))} is not an absolute URL: this is the egress proxy, send http://host/path or CONNECT host:port`,
    );
  }
  if (url.protocol !== 'http:')
    return refuse(res, 400, `${url.protocol} URLs go through CONNECT, not as a request to the proxy`);
  const t = target(url.hostname, url.port === '' ? 80 : url.port);
  if ('error' in t) return refuse(res, 400, t.error);
  const reached = await reach(t, 'http', req.socket);
  if ('status' in reached) return refuse(res, reached.status, reached.reason);
  const upstream = reached.socket;
  // Host is the URL's authority, never the client's own header: what was approved is what the server is asked for.
  const out = request({
    method: req.method,
    path: `${url.pathname}${url.search}`,
    headers: [...endToEnd(req.rawHeaders), 'host', url.host, 'connection', 'close'],
    createConnection: () => upstream,
  });
  out.on('error', (err) => {
    upstream.destroy();
    refuse(res, 502, `${url.host}: ${err.message}`);
  });
  out.on('response', (r) => {
    r.on('error', () => res.destroy());
    try {
      res.writeHead(r.statusCode ?? 502, r.statusMessage, endToEnd(r.rawHeaders));
    } catch (err) {
      // An answer Node will not pass on (a status line or header with forbidden characters): never a crash. The
      // refused reason phrase stays on the response unless cleared, and would fail the 502 too.
      res.statusMessage = '';
      r.destroy();
      return refuse(res, 502, `${url.host} sent an answer that cannot be passed on (${(err as Error).message})`);
    }
    r.pipe(res);
  });
  req.pipe(out);
  req.on('error', () => out.destroy());
  res.on('close', () => {
    if (!res.writableFinished) out.destroy();
  });
}

/** The server that reads the task's HTTP proxy requests: `reach` decides and connects each one. */
export function proxyFront(reach: Reach, name = 'tether egress proxy'): Server {
  // No request timeout: a request may wait an hour for a person's approval. Headers must arrive within 30 s.
  const front = createServer({ requestTimeout: 0, headersTimeout: 30_000, keepAliveTimeout: 5_000 });
  front.on(
    'request',
    (req, res) => void forward(req, res, reach, name).catch((err: unknown) => refuseAs(res, 502, String(err), name)),
  );
  front.on('connect', (req: IncomingMessage, client: Duplex, head: Buffer) => {
    client.on('error', () => client.destroy());
    const t = parseAuthority(req.url ?? '');
    if ('error' in t) {
      client.end(refusal(400, t.error, name));
      return;
    }
    reach(t, 'connect', client)
      .then((reached) => {
        if ('status' in reached) {
          client.end(refusal(reached.status, reached.reason, name));
          return;
        }
        if (client.destroyed) {
          reached.socket.destroy();
          return;
        }
        client.write('HTTP/1.1 200 Connection established\r\n\r\n');
        if (head.length > 0) reached.socket.write(head);
        tunnel(client, reached.socket);
      })
      .catch(() => client.destroy());
  });
  front.on('upgrade', (_req: IncomingMessage, client: Duplex) => {
    client.on('error', () => client.destroy());
    client.end(refusal(501, 'Upgrade through the proxy is not supported: use CONNECT (wss:// and https:// do)', name));
  });
  front.on('clientError', (err: NodeJS.ErrnoException, client: Duplex) => {
    if (client.writable) client.end(refusal(400, `a malformed request (${err.code ?? err.message})`, name));
    else client.destroy();
  });
  return front;
}
