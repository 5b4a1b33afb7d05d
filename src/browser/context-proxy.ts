// One task's browser proxy: a port on the worker's 127.0.0.1 that the task's browser context sends every request
// through (navigations, redirects, sub-resources, websockets, service workers; loopback too). Each connection is
// decided by the run's egress gate as a request of the browser call the page serves now, so it is attributed to
// that run and call, and asked about with it. Chromium resolves no name itself (session-pool.ts). The proxy does not
// read the browser's HTTPS (Chromium trusts its own store, not the worker's CA), so a host allowed only request by
// request (read-only, or some paths) is decided as a host, and no egress.credentials header is ever added: any page's
// script could spend it. Worker-only.
import { createServer, type Server, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { proxyFront, type Reach } from '../environments/egress/http-forward.js';
import { targetText, type Target } from '../environments/egress/target.js';
import type { CallNetwork } from '../tool-egress/call-network.js';

/** The browser call a page's requests belong to: its network, and how a person is shown it. */
export interface PageCall {
  net: CallNetwork;
  /** `browser_click e12`, `browser_navigate https://…`. */
  call: string;
  /** The page's address now (it changes as the page navigates). */
  page: () => string;
}

export class ContextProxy {
  private current: PageCall | undefined;
  private readonly open = new Set<Socket>();
  private readonly server: Server;
  /** For Playwright's per-context proxy setting: http://127.0.0.1:PORT. */
  url = '';

  private constructor() {
    const front = proxyFront((t, _via, client) => this.reach(t, client), 'tether browser proxy');
    this.server = createServer((s) => {
      this.open.add(s);
      s.once('close', () => this.open.delete(s));
      s.on('error', () => s.destroy());
      s.setNoDelay(true);
      front.emit('connection', s);
    });
    // Half-closes pass through a tunnel (net.Server reads the property for each accepted socket).
    (this.server as Server & { allowHalfOpen: boolean }).allowHalfOpen = true;
  }

  /** A proxy on a free port of 127.0.0.1; it refuses everything until a call is served (`serve`). */
  static async start(): Promise<ContextProxy> {
    const proxy = new ContextProxy();
    await new Promise<void>((ok, fail) => {
      proxy.server.once('error', fail);
      proxy.server.listen(0, '127.0.0.1', ok);
    });
    proxy.server.unref();
    proxy.url = `http://127.0.0.1:${(proxy.server.address() as { port: number }).port}`;
    return proxy;
  }

  /** The call the page's requests belong to from now on (until the next call of the task's browser). */
  serve(call: PageCall): void {
    this.current = call;
  }

  private async reach(t: Target, client: Duplex): Promise<Awaited<ReturnType<Reach>>> {
    const call = this.current;
    if (!call) return { status: 403, reason: 'no browser call of a run is using this page' };
    const gone = new AbortController();
    const onClose = (): void => gone.abort();
    client.once('close', onClose);
    try {
      const page = call.page();
      const from = page && page !== 'about:blank' ? ` (a request of the page ${page})` : '';
      const opened = await call.net.open(t, `${call.call}${from}: ${targetText(t)}`, gone.signal);
      return 'socket' in opened ? { socket: opened.socket } : { status: opened.status, reason: opened.refused };
    } finally {
      client.off('close', onClose);
    }
  }

  /** Closes the port and every connection through it. */
  close(): Promise<void> {
    this.current = undefined;
    const closed = new Promise<void>((ok) => this.server.close(() => ok()));
    for (const s of this.open) s.destroy();
    return closed;
  }
}
