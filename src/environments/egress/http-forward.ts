// The HTTP side of the egress proxy: a Node HTTP server that is never listened on, fed the task's connections. Its
// parser (llhttp) refuses malformed and ambiguous requests (Content-Length with Transfer-Encoding, bad chunking) with
// a 400; each request is gated on its own host, so a kept-alive connection cannot reuse one approval for another
// host; CONNECT becomes a tunnel, or a connection the proxy reads (intercept.ts) when the reach says so. Worker-only.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { EgressVia } from '../../common/egress-types.js';
import { endDrained, gone, NO_BODY_READ, refusal, refuseAs, relayRequest, tunnel } from './relay.js';
import type { Judged } from './request-gate.js';
import type { Credential } from './credentials.js';
import { parseAuthority, target, type Target } from './target.js';

/**
 * What the task's proxy does with a target: a connected socket, or an HTTP status and the reason. With `open`, a
 * CONNECT or SOCKS connection is handed to it instead of a plain tunnel (the proxy reads it); with `judge`, each
 * absolute-URI request is decided before it is sent (a host allowed request by request).
 */
export type Reach = (
  t: Target,
  via: EgressVia,
  client: Duplex,
) => Promise<Reached | { status: number; reason: string }>;

export interface Reached {
  socket: Socket;
  open?: (client: Socket, head: Buffer) => void;
  judge?: (req: IncomingMessage, url: URL) => Promise<Judged>;
  /** TLS upstream for an absolute https:// request (sent to the proxy in the clear); without it such requests are refused. */
  secure?: (socket: Socket) => Promise<Duplex>;
  /** Added to an absolute https:// request (never to plain http://). */
  credential?: Credential;
  /** A new connection to the same target (through the same address checks), for one that closed while judged. */
  reconnect?: () => Promise<Socket>;
}

/** One request in absolute form (`GET http://host/path`) to its host, with its own connection there. */
async function forward(req: IncomingMessage, res: ServerResponse, reach: Reach, name: string): Promise<void> {
  if (refusedForHeaders(req, res, name)) return;
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
  const https = url.protocol === 'https:';
  if (url.protocol !== 'http:' && !https)
    return refuse(res, 400, `${url.protocol} URLs go through CONNECT, not as a request to the proxy`);
  const t = target(url.hostname, url.port === '' ? (https ? 443 : 80) : url.port);
  if ('error' in t) return refuse(res, 400, t.error);
  const reached = await reach(t, 'http', req.socket);
  if ('status' in reached) return refuse(res, reached.status, reached.reason);
  if (https && !reached.secure) {
    reached.socket.destroy();
    return refuse(res, 400, 'https:// URLs go through CONNECT, not as a request to the proxy');
  }
  const judged = reached.judge ? await reached.judge(req, url) : undefined;
  if (judged && !judged.allow) {
    reached.socket.destroy();
    return refuseAs(res, 403, judged.reason, name, true);
  }
  let upstream: Duplex = reached.socket;
  // A request a person decided may have waited long: a connection the host closed meanwhile is opened again.
  if (judged && gone(upstream) && reached.reconnect)
    try {
      upstream = await reached.reconnect();
    } catch (err) {
      return refuse(res, 502, (err as Error).message);
    }
  if (https)
    try {
      upstream = await reached.secure!(upstream as Socket);
    } catch (err) {
      return refuse(res, 502, (err as Error).message);
    }
  // Host is the URL's authority, never the client's own header: what was approved is what the server is asked for.
  relayRequest(req, res, {
    authority: url.host,
    path: `${url.pathname}${url.search}`,
    socket: upstream,
    ...(https && reached.credential ? { credential: reached.credential } : {}),
    body: judged?.body ?? NO_BODY_READ,
    name,
    done: () => undefined,
  });
}

/** More headers than any client sends: a request with more is refused whole, never judged on part of them. */
export const MAX_HEADERS = 256;

/**
 * The HTTP server the proxy reads requests with (never listened on; fed connections). No request timeout: a request
 * may wait an hour for a person's approval; headers must arrive within 30 s. Half-open connections stay open (a
 * client that ends its side still gets the answer; the server's own switch for it is not among createServer's
 * options). Every header is kept: by default Node keeps only the first 2,000 header lines in `req.headers` while its
 * parser frames the body with all of them, so a Content-Length past them went unseen and the body was sent upstream
 * as the next request. Their bytes stay capped by the parser's header size limit; `refusedForHeaders` refuses the rest.
 */
export function readingServer(): Server {
  const server = createServer({ requestTimeout: 0, headersTimeout: 30_000, keepAliveTimeout: 5_000 });
  (server as Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  server.maxHeadersCount = 0;
  return server;
}

/**
 * A request with more than MAX_HEADERS headers: answered 431 and its connection closed without reading on (what
 * follows its headers is not judged, so it must not be read as a request either). True when it was refused.
 */
export function refusedForHeaders(req: IncomingMessage, res: ServerResponse, name: string): boolean {
  if (req.rawHeaders.length <= 2 * MAX_HEADERS) return false;
  res.on('finish', () => req.socket.destroy());
  refuseAs(res, 431, `a request with more than ${MAX_HEADERS} headers is refused`, name);
  return true;
}

/** The server that reads the task's HTTP proxy requests: `reach` decides and connects each one. */
export function proxyFront(reach: Reach, name = 'tether egress proxy'): Server {
  const front = readingServer();
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
        if (reached.open) return reached.open(client as Socket, head);
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
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
    endDrained(client, refusal(status, `a malformed request (${err.code ?? err.message})`, name));
  });
  return front;
}
