// Sending on what the egress proxy allowed: a byte tunnel both ways, or one HTTP request relayed upstream with the
// headers that belong to its hop dropped, its framing made explicit, the Host it was decided for and the broker's
// credential, and the answer passed back. Worker-only.
import { request, type Agent, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { withCredential, type Credential } from './credentials.js';

/** Headers that belong to one hop (RFC 9110 7.6.1), the proxy's own, and Expect (the proxy answers 100 itself). */
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
  'expect',
]);

/**
 * Raw header pairs without hop-by-hop ones (and those the Connection header names, except Content-Length: a message's
 * framing is never dropped that way). `framing: false` drops Content-Length too, for the caller to state it.
 */
export function endToEnd(raw: readonly string[], framing = true): string[] {
  const named = new Set<string>();
  for (let i = 0; i < raw.length; i += 2)
    if (raw[i]!.toLowerCase() === 'connection')
      for (const n of raw[i + 1]!.split(',')) named.add(n.trim().toLowerCase());
  named.delete('content-length');
  if (!framing) named.add('content-length');
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (!HOP.has(name) && !named.has(name)) out.push(raw[i]!, raw[i + 1]!);
  }
  return out;
}

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  403: 'Forbidden',
  405: 'Method Not Allowed',
  421: 'Misdirected Request',
  431: 'Request Header Fields Too Large',
  501: 'Not Implemented',
  502: 'Bad Gateway',
};

/** A whole refusal, for a socket no HTTP response object owns (CONNECT, an upgrade, a parse error). */
export function refusal(status: number, reason: string, name = 'tether egress proxy'): string {
  const text = `${name}: ${reason}\n`;
  return `HTTP/1.1 ${status} ${TITLES[status] ?? 'Error'}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`;
}

/**
 * A refusal as the answer to a request. The connection closes after it, unless `keepAlive`: then the server reads
 * and drops the rest of the request's body, so a client still sending it reads the refusal instead of a reset.
 */
export function refuseAs(res: ServerResponse, status: number, reason: string, name: string, keepAlive = false): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  try {
    res.writeHead(status, {
      'content-type': 'text/plain; charset=utf-8',
      ...(keepAlive ? {} : { connection: 'close' }),
    });
    res.end(`${name}: ${reason}\n`);
  } catch {
    // A response left unusable by an upstream answer Node refused to write: the connection goes instead.
    res.destroy();
  }
}

/**
 * Ends a connection with `text` while still reading what the client sends: closing with unread bytes makes the
 * kernel reset the connection, and the client would never read the answer.
 */
export function endDrained(socket: Duplex, text: string): void {
  // The parser may report again on the bytes read while draining: the answer is sent once.
  if (ending.has(socket)) return;
  ending.add(socket);
  if (!socket.writable) return void socket.destroy();
  socket.on('data', () => undefined);
  socket.end(text);
  socket.resume();
  setTimeout(() => socket.destroy(), 5_000).unref();
}

const ending = new WeakSet<Duplex>();

/** Whether a connection can no longer carry a request (the other side closed it, or it failed). */
export function gone(s: Duplex): boolean {
  return s.destroyed || !s.writable || s.readableEnded;
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

/** The start of a request's body, read before it was decided (so a person could see it). */
export interface BodyHead {
  chunks: Buffer[];
  bytes: number;
  /** The whole body was read. */
  ended: boolean;
}

export const NO_BODY_READ: BodyHead = { chunks: [], bytes: 0, ended: false };

export interface Outgoing {
  /** The Host header: the authority that was decided, never the client's own. */
  authority: string;
  /** The request target to send (origin form). */
  path: string;
  /** A kept-alive connection for it, or one socket for this request only (then `connection: close`). */
  agent?: Agent;
  socket?: Duplex;
  credential?: Credential;
  body: BodyHead;
  /** The proxy's name in refusals. */
  name: string;
  /** Called once when the exchange ends: the status sent (undefined when none) and bytes each way. */
  done: (o: { status?: number; up: number; down: number; error?: string }) => void;
}

/**
 * Relays `req` upstream and the answer back. A body with no Content-Length goes chunked (stated, so a GET's body can
 * never be read upstream as the next request); Content-Length is passed as the client's parser checked it.
 */
export function relayRequest(req: IncomingMessage, res: ServerResponse, o: Outgoing): void {
  let up = o.body.bytes;
  let down = 0;
  let status: number | undefined;
  let ended = false;
  const end = (error?: string): void => {
    if (ended) return;
    ended = true;
    o.done({ status, up, down, ...(error ? { error } : {}) });
  };
  // The framing is stated here, from what the parser read: the length it checked, or chunked. A request can never
  // leave its body unframed upstream (where the body would be read as the next request).
  const length = req.headers['content-length'];
  let headers = [...endToEnd(req.rawHeaders, false), 'host', o.authority];
  if (length !== undefined) headers.push('content-length', length);
  else if (req.headers['transfer-encoding'] !== undefined) headers.push('transfer-encoding', 'chunked');
  if (!o.agent) headers.push('connection', 'close');
  if (o.credential) headers = withCredential(headers, o.credential);
  const socket = o.socket;
  const out = request({
    method: req.method,
    path: o.path,
    headers,
    ...(o.agent ? { agent: o.agent } : { createConnection: () => socket! }),
  });
  out.on('error', (err) => {
    socket?.destroy();
    refuseAs(res, 502, err.message.includes(o.authority) ? err.message : `${o.authority}: ${err.message}`, o.name);
    end(err.message);
  });
  out.on('response', (r) => {
    r.on('error', () => res.destroy());
    r.on('data', (c: Buffer) => (down += c.length));
    try {
      res.writeHead(r.statusCode ?? 502, r.statusMessage, endToEnd(r.rawHeaders));
      status = r.statusCode;
    } catch (err) {
      // An answer Node will not pass on (a status line or header with forbidden characters): never a crash. The
      // refused reason phrase stays on the response unless cleared, and would fail the 502 too.
      res.statusMessage = '';
      r.destroy();
      refuseAs(res, 502, `${o.authority} sent an answer that cannot be passed on (${(err as Error).message})`, o.name);
      return end('an answer that cannot be passed on');
    }
    r.pipe(res);
  });
  for (const c of o.body.chunks) out.write(c);
  if (o.body.ended) out.end();
  else {
    req.on('data', (c: Buffer) => (up += c.length));
    req.pipe(out);
  }
  req.on('error', () => out.destroy());
  res.on('close', () => {
    if (!res.writableFinished) out.destroy();
    end();
  });
}

/**
 * An Upgrade request (a websocket) relayed on `upstream`, a connection of its own: once the server switches
 * protocols, its answer goes back as it came and the two sockets are tunnelled; an answer that does not switch goes
 * back and the connection ends with it.
 */
export function relayUpgrade(
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  o: {
    upstream: Duplex;
    authority: string;
    path: string;
    credential?: Credential;
    name: string;
    upgraded: (status: number | undefined) => void;
  },
): void {
  let headers = [
    ...endToEnd(req.rawHeaders),
    'host',
    o.authority,
    'connection',
    'Upgrade',
    'upgrade',
    String(req.headers.upgrade),
  ];
  if (o.credential) headers = withCredential(headers, o.credential);
  const out = request({ method: req.method, path: o.path, headers, createConnection: () => o.upstream });
  out.on('error', (err) => socket.end(refusal(502, `${o.authority}: ${err.message}`, o.name)));
  out.on('response', (r) => {
    const lines = [`HTTP/1.1 ${r.statusCode ?? 502} ${r.statusMessage ?? ''}`];
    const raw = endToEnd(r.rawHeaders);
    for (let i = 0; i < raw.length; i += 2) lines.push(`${raw[i]!}: ${raw[i + 1]!}`);
    socket.write(`${lines.join('\r\n')}\r\nconnection: close\r\n\r\n`);
    r.pipe(socket);
  });
  out.on('upgrade', (r, up, upHead) => {
    const lines = [`HTTP/1.1 ${r.statusCode ?? 101} ${r.statusMessage ?? 'Switching Protocols'}`];
    for (let i = 0; i < r.rawHeaders.length; i += 2) lines.push(`${r.rawHeaders[i]!}: ${r.rawHeaders[i + 1]!}`);
    socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    if (upHead.length > 0) socket.write(upHead);
    if (head.length > 0) up.write(head);
    o.upgraded(r.statusCode);
    tunnel(socket, up);
  });
  out.end();
}
