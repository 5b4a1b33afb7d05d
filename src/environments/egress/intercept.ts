// Reading what leaves through an allowed connection: the first bytes say TLS (answered with a certificate for the
// host the connection was allowed for, made by the worker's CA) or plain HTTP; either way the requests are parsed by
// Node's HTTP server (llhttp, strict), each checked against the host the connection was decided for, decided when
// the host is allowed request by request, given the broker's credential (TLS only), and sent upstream over the
// proxy's own verified connection. Only HTTP/1.1 is offered (ALPN): see docs/sandbox.md. Worker-only.
import { Agent, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { TLSSocket, type SecureContext } from 'node:tls';
import type { EgressVia } from '../../common/egress-types.js';
import type { Credential } from './credentials.js';
import type { Attribution, EgressGate } from './gate.js';
import { endDrained, gone, NO_BODY_READ, refusal, refuseAs, relayRequest, relayUpgrade, tunnel } from './relay.js';
import { secureUpstream } from './upstream-tls.js';
import { judgeRequest, type Judged } from './request-gate.js';
import { readingServer, refusedForHeaders } from './http-forward.js';
import { normalizeHost, target, targetText, type Target } from './target.js';
import type { Trust } from './trust.js';

/** How long a client may take to say its first bytes after CONNECT (a TLS hello, or a request line). */
const FIRST_BYTES_MS = 30_000;
/** Methods whose answer is the request itself: never sent where the proxy adds a credential. */
const ECHOES = new Set(['TRACE', 'TRACK']);
/** Kept-alive upstream connections per client connection. */
const UPSTREAM_SOCKETS = 6;

/** What the proxy knows of one allowed connection it reads. */
export interface ReadConnection {
  t: Target;
  via: EgressVia;
  /** What allowed the connection. */
  by: string;
  /** Each request is decided (a host allowed for reading, or under some paths); else every request passes. */
  requests: boolean;
  credential?: Credential;
}

/** What the task's proxy provides: who is running, and where decisions and refusals are written. */
export interface InterceptHost {
  gate: EgressGate;
  name: string;
  who(): Attribution;
  /** One line per request (allowed or refused), never a header's value. */
  logRequest(c: ReadConnection, line: Record<string, unknown>): void;
  /**
   * A refusal, logged (with the request's method and path when it is one request's) and kept for the command's
   * result; returns the reason as the client is told it.
   */
  refuse(c: ReadConnection, reason: string, by: string, request?: { method: string; path: string }): string;
}

interface Live extends ReadConnection {
  tls: boolean;
  agent: Agent;
}

/** Reads the first chunk a client sends (or `head`, bytes that came with CONNECT); undefined when it went away. */
function firstBytes(client: Duplex, head: Buffer): Promise<Buffer | undefined> {
  if (head.length > 0) return Promise.resolve(head);
  return new Promise((resolve) => {
    const timer = setTimeout(() => done(undefined), FIRST_BYTES_MS);
    const done = (b: Buffer | undefined): void => {
      clearTimeout(timer);
      client.off('data', onData);
      client.off('close', onClose);
      client.pause();
      resolve(b);
    };
    const onData = (b: Buffer): void => done(b);
    const onClose = (): void => done(undefined);
    client.on('data', onData);
    client.once('close', onClose);
    client.resume();
  });
}

/** The client's Host (or absolute-form authority) read as a target, with the connection's scheme's default port. */
function authorityTarget(text: string, defaultPort: number): Target | undefined {
  const m = /^(\[[^\]]*\]|[^:[\]]*)(?::([0-9]*))?$/.exec(text);
  if (!m || m[1] === '') return undefined;
  const t = target(m[1]!, m[2] ? m[2] : defaultPort);
  return 'error' in t ? undefined : t;
}

export class Interceptor {
  private readonly server: Server;
  private readonly live = new WeakMap<Duplex, Live>();

  constructor(private readonly host: InterceptHost) {
    this.server = readingServer();
    this.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      this.handle(req, res).catch((err: unknown) => refuseAs(res, 502, String(err), host.name));
    });
    this.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      this.upgrade(req, socket, head).catch(() => socket.destroy());
    });
    this.server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
      socket.end(refusal(405, 'CONNECT inside a connection the proxy reads is refused', host.name));
    });
    this.server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
      const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
      endDrained(socket, refusal(status, `a malformed request (${err.code ?? err.message})`, host.name));
    });
  }

  /**
   * Takes over an allowed connection: `client` is the command's side (after CONNECT's 200 or SOCKS's success),
   * `upstream` the proxy's TCP connection to the host, `head` what the client sent along.
   */
  async open(client: Socket, upstream: Socket, c: ReadConnection, trust: Trust, head: Buffer): Promise<void> {
    const first = await firstBytes(client, head);
    if (!first) {
      upstream.destroy();
      client.destroy();
      return;
    }
    // Back where it came from (with CONNECT's own bytes in front): TLS and the HTTP parser read it from there.
    client.unshift(first);
    const tls = first[0] === 0x16;
    if (!tls && !/^[A-Z]{3,12} /.test(first.subarray(0, 14).toString('latin1'))) {
      // Not HTTP: a host allowed whole gets the bytes as they are; one allowed request by request cannot.
      if (!c.requests) {
        tunnel(client, upstream);
        return;
      }
      this.host.refuse(
        c,
        `${targetText(c.t)} is allowed only for what the proxy can read (HTTP), and this connection is not HTTP; a person can list the host in terminal.local.sandbox.egress.allow (reads and writes) or egress.passthrough`,
        c.by,
      );
      upstream.destroy();
      client.destroy();
      return;
    }
    let firstUpstream: Promise<Duplex> | undefined = tls
      ? secureUpstream(upstream, c.t, trust.upstream)
      : Promise.resolve(upstream);
    firstUpstream.catch(() => undefined);
    const agent = new Agent({ keepAlive: true, maxSockets: UPSTREAM_SOCKETS });
    // The first request uses the connection opened when the host was allowed (its TLS handshake already under way);
    // a later one that finds no free connection opens its own, through the gate's address check again.
    (agent as unknown as { createConnection: unknown }).createConnection = (
      _o: unknown,
      cb: (err: Error | null, s?: Duplex) => void,
    ): undefined => {
      const first = firstUpstream;
      firstUpstream = undefined;
      // The first connection may have waited long (a person deciding the first request): one the host closed
      // meanwhile is replaced.
      const next = first
        ? first.then((s) => (gone(s) ? this.reconnect(c.t, tls, trust) : s))
        : this.reconnect(c.t, tls, trust);
      next.then(
        (s) => cb(null, s),
        (err: Error) => cb(err),
      );
      return undefined;
    };
    const live: Live = { ...c, tls, agent };
    let socket: Duplex = client;
    if (tls) {
      let context: SecureContext;
      try {
        context = await trust.issuer.context(c.t.host, c.t.ip);
      } catch (err) {
        this.host.refuse(c, `no certificate could be made for ${c.t.host} (${(err as Error).message})`, c.by);
        agent.destroy();
        upstream.destroy();
        client.destroy();
        return;
      }
      socket = this.serveTls(client, live, context);
    }
    this.live.set(socket, live);
    socket.once('close', () => {
      agent.destroy();
      upstream.destroy();
    });
    this.server.emit('connection', socket);
    if (!tls) client.resume();
  }

  private reconnect(t: Target, tls: boolean, trust: Trust): Promise<Duplex> {
    const p = this.host.gate.connect(t).then((c): Duplex | Promise<Duplex> => {
      if ('error' in c) throw new Error(c.error);
      return tls ? secureUpstream(c.socket, t, trust.upstream) : c.socket;
    });
    p.catch(() => undefined);
    return p;
  }

  /**
   * The command's TLS, answered as the host: the certificate names the host the connection was allowed for, and a
   * client asking (SNI) for another name is refused in the handshake. Only http/1.1 is offered.
   */
  private serveTls(client: Socket, c: Live, context: SecureContext): TLSSocket {
    const secure = new TLSSocket(client, {
      isServer: true,
      secureContext: context,
      ALPNProtocols: ['http/1.1'],
      SNICallback: (name: string, cb: (err: Error | null, ctx?: SecureContext) => void) => {
        const asked = normalizeHost(name);
        if ('error' in asked || asked.host !== c.t.host) {
          const reason = this.host.refuse(
            c,
            `the program asked (TLS SNI) for ${JSON.stringify(name.slice(0, 200))} inside a connection allowed for ${targetText(c.t)}`,
            c.by,
          );
          return cb(new Error(reason));
        }
        cb(null, context);
      },
    });
    secure.on('error', (err: NodeJS.ErrnoException) => {
      // The program would not take the proxy's certificate: it pins certificates or trusts its own store only.
      if (
        /ALERT_(UNKNOWN_CA|BAD_CERTIFICATE|CERTIFICATE_UNKNOWN|DECRYPT_ERROR)|unknown ca|bad certificate/i.test(
          err.code ?? err.message,
        )
      )
        this.host.refuse(
          c,
          `the program refused the proxy's certificate for ${c.t.host} (${err.code ?? err.message}): it does not read SSL_CERT_FILE and the system bundle, or it pins certificates; list the host in terminal.local.sandbox.egress.passthrough to leave its TLS unread`,
          c.by,
        );
      secure.destroy();
    });
    return secure;
  }

  /** Checks that a request is for the connection's host, or answers 421: one connection is one host. */
  private authority(req: IncomingMessage, c: Live): { authority: string; path: string } | { wrong: string } {
    const scheme = c.tls ? 'https' : 'http';
    const defaultPort = c.tls ? 443 : 80;
    let path = req.url ?? '/';
    const named: string[] = [];
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(path)) {
      let url: URL;
      try {
        url = new URL(path);
      } catch {
        return { wrong: `${JSON.stringify(path.slice(0, 200))} is not a URL` };
      }
      if (url.protocol !== `${scheme}:`) return { wrong: `a ${url.protocol} URL inside an ${scheme} connection` };
      named.push(url.host);
      path = `${url.pathname}${url.search}`;
    }
    const host = req.headers.host;
    if (host !== undefined) named.push(host);
    if (named.length === 0) return { wrong: 'no Host header' };
    for (const n of named) {
      const t = authorityTarget(n, defaultPort);
      if (!t || t.host !== c.t.host || t.port !== c.t.port)
        return {
          wrong: `a request for ${JSON.stringify(n.slice(0, 200))} inside a connection allowed for ${targetText(c.t)}`,
        };
    }
    const shown = c.t.ip === 6 ? `[${c.t.host}]` : c.t.host;
    return { authority: c.t.port === defaultPort ? shown : `${shown}:${c.t.port}`, path };
  }

  /** One request: for this host, decided when the connection asks for it, then relayed with the credential. */
  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (refusedForHeaders(req, res, this.host.name)) return;
    const c = this.live.get(req.socket);
    if (!c) return refuseAs(res, 502, 'a request on a connection the proxy does not know', this.host.name);
    const started = Date.now();
    const where = this.authority(req, c);
    const method = req.method ?? 'GET';
    if ('wrong' in where) {
      const reason = this.host.refuse(c, where.wrong, 'host', { method, path: '' });
      return refuseAs(res, 421, reason, this.host.name);
    }
    const url = `${c.tls ? 'https' : 'http'}://${where.authority}${where.path}`;
    const line = { method, path: where.path.split('?')[0]!.slice(0, 300) };
    if (c.tls && c.credential && ECHOES.has(method)) {
      const reason = this.host.refuse(
        c,
        `${method} ${url.slice(0, 300)}: ${method} echoes the request back, the credential the proxy adds included`,
        'credential',
        line,
      );
      return refuseAs(res, 403, reason, this.host.name, true);
    }
    const judged = await this.judge(c, req, url, where.path);
    if (!judged.allow) {
      const reason = this.host.refuse(c, `${method} ${url.slice(0, 300)}: ${judged.reason}`, judged.by, line);
      // The body's rest is read and dropped by the server (it goes nowhere), so the client reads the refusal.
      return refuseAs(res, 403, reason, this.host.name, true);
    }
    const credential = c.tls ? c.credential : undefined;
    relayRequest(req, res, {
      authority: where.authority,
      path: where.path,
      agent: c.agent,
      ...(credential ? { credential } : {}),
      body: judged.body,
      name: this.host.name,
      done: (o) =>
        this.host.logRequest(c, {
          ...line,
          decision: 'allowed',
          by: judged.by,
          status: o.status,
          up: o.up,
          down: o.down,
          ms: Date.now() - started,
          ...(credential ? { credential: credential.header.toLowerCase() } : {}),
          ...(o.error ? { error: o.error } : {}),
        }),
    });
  }

  /** The decision on a request (every one passes on a connection allowed whole); a client that leaves withdraws it. */
  private judge(c: Live, req: IncomingMessage, url: string, path: string): Promise<Judged> {
    if (!c.requests) return Promise.resolve({ allow: true, by: c.by, body: NO_BODY_READ });
    const gone = new AbortController();
    const onClose = (): void => gone.abort();
    req.socket.once('close', onClose);
    return judgeRequest(this.host.gate, c.t, c.via, this.host.who(), req, {
      url,
      target: path,
      gone: gone.signal,
    }).finally(() => req.socket.off('close', onClose));
  }

  /** An Upgrade (a websocket): a write, since after it the proxy reads nothing; relayed on a connection of its own. */
  private async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const c = this.live.get(socket);
    if (!c) return void socket.destroy();
    const where = this.authority(req, c);
    const method = req.method ?? 'GET';
    if ('wrong' in where)
      return void socket.end(
        refusal(421, this.host.refuse(c, where.wrong, 'host', { method, path: '' }), this.host.name),
      );
    const url = `${c.tls ? 'https' : 'http'}://${where.authority}${where.path}`;
    const line = { method, path: where.path.split('?')[0]!.slice(0, 300) };
    const judged = await this.judge(c, req, url, where.path);
    if (!judged.allow) {
      const reason = this.host.refuse(c, `${method} ${url.slice(0, 300)} (upgrade): ${judged.reason}`, judged.by, line);
      return void socket.end(refusal(403, reason, this.host.name));
    }
    let upstream: Duplex;
    try {
      upstream = await this.reconnect(c.t, c.tls, await this.host.gate.trust());
    } catch (err) {
      return void socket.end(refusal(502, (err as Error).message, this.host.name));
    }
    const credential = c.tls ? c.credential : undefined;
    relayUpgrade(req, socket, head, {
      upstream,
      authority: where.authority,
      path: where.path,
      ...(credential ? { credential } : {}),
      name: this.host.name,
      upgraded: (status) =>
        this.host.logRequest(c, { ...line, upgrade: req.headers.upgrade, decision: 'allowed', by: judged.by, status }),
    });
  }
}
