// One task's egress proxy: the listening socket inside its network namespace, the connections its commands open
// there (SOCKS5 or HTTP, told apart by the first byte), each one gated, then tunnelled or, when the policy needs to
// see the requests (a host allowed for reading or some paths, a brokered credential), read (intercept.ts); logged
// when it ends and, when refused, remembered for the command's result. Worker-only.
import type { Server, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { EgressVia } from '../../common/egress-types.js';
import type { Logger } from '../../logging/logger.js';
import type { Attribution, Decision, EgressGate } from './gate.js';
import type { IncomingMessage, Server as HttpServer } from 'node:http';
import { proxyFront, type Reach, type Reached } from './http-forward.js';
import { Interceptor, type ReadConnection } from './intercept.js';
import { secureUpstream } from './upstream-tls.js';
import { listenInside } from './listener.js';
import { tunnel } from './relay.js';
import { judgeRequest, type Judged } from './request-gate.js';
import { readSocksRequest, SOCKS, socksReply } from './socks.js';
import { targetText, type Target } from './target.js';
import { TRUST_VARIABLES, type Trust } from './trust.js';
import { countRefusal } from '../../observability/metrics.js';

/** Connections a task may hold open through the proxy at once; more are closed at once. */
const MAX_CONNECTIONS = 512;
/** A connection that says nothing for this long is closed (a client waits for the proxy to speak only in SOCKS4). */
const FIRST_BYTE_MS = 30_000;
const KEEP_REFUSALS = 20;

/** Where a task's proxy runs: its label in the log, and the run to ask when no command says otherwise. */
export interface ProxyLabel {
  taskId: string;
  backend: string;
  workflowId?: string;
}

/**
 * The variables that send programs through a proxy on 127.0.0.1:`port`, upper and lower case (tools read one or the
 * other): HTTP and HTTPS (CONNECT) to its HTTP side, ALL_PROXY to its SOCKS5 side with names resolved by the proxy.
 */
export function proxyVariables(port: number): Record<string, string> {
  const http = `http://127.0.0.1:${port}`;
  const vars: Record<string, string> = {
    HTTP_PROXY: http,
    HTTPS_PROXY: http,
    ALL_PROXY: `socks5h://127.0.0.1:${port}`,
    NO_PROXY: 'localhost,127.0.0.1,::1',
  };
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(vars)) out[k] = out[k.toLowerCase()] = v;
  return out;
}

export class TaskProxy {
  private readonly open = new Set<Socket>();
  private readonly front: HttpServer;
  private readonly interceptor: Interceptor;
  private refusals: { at: number; text: string }[] = [];
  private who: () => Attribution = () => ({ command: '' });
  private closed = false;

  private constructor(
    private readonly gate: EgressGate,
    private readonly server: Server,
    /** The port on 127.0.0.1 inside the task's namespace. */
    readonly port: number,
    private readonly label: ProxyLabel,
    private readonly log: Logger,
    private readonly trust: Trust,
  ) {
    const reach: Reach = (t, via, client) => this.reach(t, via, client);
    this.front = proxyFront(reach);
    this.interceptor = new Interceptor({
      gate,
      name: 'tether egress proxy',
      who: () => this.attribution(),
      logRequest: (c, line) => this.log.info({ ...this.base(c.t, c.via), ...line }, 'egress request'),
      refuse: (c, reason, by, request) =>
        this.refused(
          { ...this.base(c.t, c.via), ...request },
          c.t,
          reason,
          by,
          403,
          request ? 'egress request' : 'egress',
        ).reason,
    });
    // Half-closes pass through a tunnel: a client that shuts its side down still gets the answer.
    // (net.Server reads the property for each accepted socket; its typings do not declare it.)
    (server as Server & { allowHalfOpen: boolean }).allowHalfOpen = true;
    server.on('connection', (s: Socket) => this.accept(s));
    server.on('error', (err) => log.warn({ ...label, err: err.message }, 'egress proxy: listening socket failed'));
  }

  /** Opens the proxy's port in the namespace `enter` runs its argv in (see listener.ts). */
  static async open(
    gate: EgressGate,
    enter: (argv: string[]) => string[],
    label: ProxyLabel,
    log: Logger,
    port = 0,
  ): Promise<TaskProxy> {
    const trust = await gate.trust();
    const l = await listenInside(enter, port);
    return new TaskProxy(gate, l.server, l.port, label, log, trust);
  }

  /** Says what the task is running when a connection comes (the environment's foreground and background commands). */
  attribute(who: () => Attribution): void {
    this.who = who;
  }

  /** The variables that send programs through the proxy (see proxyVariables) and make them trust its CA. */
  env(): Record<string, string> {
    return { ...proxyVariables(this.port), ...TRUST_VARIABLES };
  }

  /** The bundle files a sandbox binds (trust.ts): the machine's bundle plus the proxy's CA, and the CA alone. */
  trustFiles(): Pick<Trust, 'bundleFile' | 'caFile' | 'over'> {
    return { bundleFile: this.trust.bundleFile, caFile: this.trust.caFile, over: this.trust.over };
  }

  /** What the proxy refused since `since` (a command's start), one line each, for the command's result. */
  refusalsSince(since: number): string[] {
    return this.refusals.filter((r) => r.at >= since).map((r) => r.text);
  }

  private accept(s: Socket): void {
    s.on('error', () => s.destroy());
    // Replies are written in pieces (a status line, then the tunnel's data): Nagle would hold each small one back
    // until the client acknowledged the last, which a client waiting for the rest delays by milliseconds.
    s.setNoDelay(true);
    if (this.closed || this.open.size >= MAX_CONNECTIONS) {
      s.destroy();
      return;
    }
    this.open.add(s);
    s.once('close', () => this.open.delete(s));
    s.setTimeout(FIRST_BYTE_MS, () => s.destroy());
    s.once('data', (first: Buffer) => {
      s.pause();
      s.setTimeout(0);
      if (first[0] === 0x05) this.socks(s, first).catch(() => s.destroy());
      else if (first[0] === 0x04)
        s.end(Buffer.from([0x00, 0x5b])); // SOCKS4: "rejected"; only SOCKS5 names are resolved here
      else {
        s.unshift(first);
        this.front.emit('connection', s);
        s.resume();
      }
    });
  }

  private async socks(s: Socket, first: Buffer): Promise<void> {
    const req = await readSocksRequest(s, first);
    if ('refuse' in req) {
      this.log.info({ ...this.label, via: 'socks', decision: 'malformed', reason: req.why }, 'egress');
      if (req.refuse >= 0 && s.writable) s.end(socksReply(req.refuse));
      else s.destroy();
      return;
    }
    const reached = await this.reach(req.target, 'socks', s);
    if ('status' in reached) {
      if (s.writable) s.end(socksReply(reached.status === 403 ? SOCKS.notAllowed : SOCKS.hostUnreachable));
      return;
    }
    if (s.destroyed) {
      reached.socket.destroy();
      return;
    }
    s.write(socksReply(SOCKS.ok));
    if (reached.open) return reached.open(s, Buffer.alloc(0));
    tunnel(s, reached.socket);
    s.resume();
  }

  /** Who is running now, with the task's run when the command names none. */
  private attribution(): Attribution {
    const who = this.who();
    return { ...who, workflowId: who.workflowId ?? this.label.workflowId };
  }

  /** The fields of every log line about a connection to `t`. */
  private base(t: Target, via: EgressVia): Record<string, unknown> {
    const a = this.attribution();
    // What was running goes into the log line too (shortened): who made a connection, not only where it went.
    const command = a.command.length > 300 ? `${a.command.slice(0, 300)}…` : a.command;
    return { ...this.label, workflowId: a.workflowId, callId: a.callId, host: t.host, port: t.port, via, command };
  }

  /**
   * How an allowed connection goes on: read by the proxy when the policy must see its requests (allowed request by
   * request) or a credential is to be added, unless the host is a passthrough one; otherwise a tunnel.
   */
  private reading(t: Target, via: EgressVia, d: Decision & { allow: true }, socket: Socket): Reached {
    const credential = this.gate.credentialFor(t);
    const requests = d.requests === true;
    const base: Reached = {
      socket,
      // An absolute https:// request sent to the proxy in the clear (busybox's wget, Alpine's) goes on over the
      // proxy's own verified TLS.
      secure: (s) => secureUpstream(s, t, this.trust.upstream),
      ...(credential ? { credential } : {}),
      ...(requests
        ? {
            judge: (req, url) => this.judge(t, via, req, url),
            reconnect: async () => {
              const c = await this.gate.connect(t);
              if ('error' in c) throw new Error(c.error);
              return c.socket;
            },
          }
        : {}),
    };
    if (via === 'http' || this.gate.passthrough(t) || (!requests && !credential)) return base;
    const c: ReadConnection = { t, via, by: d.by, requests, ...(credential ? { credential } : {}) };
    return { ...base, open: (client, head) => void this.interceptor.open(client, socket, c, this.trust, head) };
  }

  /** One absolute-URI request on a host allowed request by request; a refusal is logged and kept for the result. */
  private async judge(t: Target, via: EgressVia, req: IncomingMessage, url: URL): Promise<Judged> {
    const gone = new AbortController();
    const onClose = (): void => gone.abort();
    req.socket.once('close', onClose);
    const method = req.method ?? 'GET';
    const judged = await judgeRequest(this.gate, t, via, this.attribution(), req, {
      url: url.href,
      target: `${url.pathname}${url.search}`,
      gone: gone.signal,
    }).finally(() => req.socket.off('close', onClose));
    if (judged.allow) return judged;
    const line = { method, path: url.pathname.slice(0, 300) };
    const why = `${method} ${url.href.slice(0, 300)}: ${judged.reason}`;
    return {
      ...judged,
      reason: this.refused({ ...this.base(t, via), ...line }, t, why, judged.by, 403, 'egress request').reason,
    };
  }

  /** The gate's decision for `t`, then the connection; every outcome is logged, every refusal kept for the result. */
  private async reach(
    t: Target,
    via: EgressVia,
    client: Duplex,
  ): Promise<Reached | { status: number; reason: string }> {
    const started = Date.now();
    const attribution = this.attribution();
    const gone = new AbortController();
    const onClose = (): void => gone.abort();
    client.once('close', onClose);
    const base = this.base(t, via);
    try {
      const d = await this.gate.decide(t, attribution, via, gone.signal);
      if (!d.allow) return this.refused(base, t, d.reason, d.by, 403);
      const c = await this.gate.connect(t);
      if ('error' in c) return this.refused(base, t, c.error, d.by, c.unreachable ? 502 : 403);
      c.socket.once('close', () =>
        this.log.info(
          {
            ...base,
            decision: 'allowed',
            by: d.by,
            up: c.socket.bytesWritten,
            down: c.socket.bytesRead,
            ms: Date.now() - started,
          },
          'egress',
        ),
      );
      return this.reading(t, via, d, c.socket);
    } finally {
      client.off('close', onClose);
    }
  }

  /** Logs and keeps a refusal; its reason names the target (the host at least) for the client and the result. */
  private refused(
    base: object,
    t: Target,
    reason: string,
    by: string,
    status: number,
    msg = 'egress',
  ): { status: number; reason: string } {
    const why = reason.includes(t.host) ? reason : `${targetText(t)}: ${reason}`;
    this.log.info({ ...base, decision: 'refused', by, reason }, msg);
    if (status === 403) countRefusal('egress'); // tether_refusals_total{kind="egress"}; a 502 is an unreachable host
    this.refusals = [...this.refusals, { at: Date.now(), text: why }].slice(-KEEP_REFUSALS);
    return { status, reason: why };
  }

  /** Closes the port and every connection through it. */
  close(): void {
    this.closed = true;
    this.server.close();
    for (const s of this.open) s.destroy();
    this.open.clear();
  }
}
