// The browser's way out: Chromium sends every request (navigations, redirects, sub-resources, websockets) through
// this proxy in the worker, which resolves the host itself and connects only to an address the web tools' policy
// allows. Playwright's route handler never sees redirects; a proxy sees them all. Worker-only.
import { lookup } from 'node:dns/promises';
import { connect, createServer, isIP, type Server, type Socket } from 'node:net';
import { currentConfig } from '../config/current.js';
import { blockedAddressReason } from '../web/address-policy.js';
import { proxyFront, type Reach } from '../environments/egress/http-forward.js';

/** Where a host may be reached: the addresses it resolves to, when none is refused (rebinding: the checked one is used). */
export type Resolve = (host: string) => Promise<string[]>;

const systemResolve: Resolve = async (host) => (await lookup(host, { all: true })).map((a) => a.address);

function connected(address: string, port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: address, port });
    s.once('connect', () => resolve(s));
    s.once('error', reject);
  });
}

/** Why an address may not be reached, or undefined (the web tools' policy unless browser.allow_private). */
export type AddressPolicy = (address: string) => string | undefined;

/** The proxy's decision and connection for one target. */
export function guardedReach(policy: AddressPolicy, resolve: Resolve = systemResolve): Reach {
  return async (t) => {
    const host = t.host.replace(/^\[|\]$/g, '');
    let addresses: string[];
    try {
      addresses = isIP(host) ? [host] : await resolve(host);
    } catch (err) {
      return { status: 502, reason: `cannot resolve ${host}: ${(err as Error).message}` };
    }
    if (addresses.length === 0) return { status: 502, reason: `${host} has no addresses` };
    for (const a of addresses) {
      const why = policy(a);
      if (why)
        return {
          status: 403,
          reason: `refused: ${host === a ? '' : `${host} resolves to ${a}, and `}${why} (set browser.allow_private to allow it)`,
        };
    }
    try {
      return { socket: await connected(addresses[0]!, t.port) };
    } catch (err) {
      return { status: 502, reason: `${host}:${t.port}: ${(err as Error).message}` };
    }
  };
}

export interface AddressProxy {
  /** For Chromium's --proxy-server. */
  url: string;
  close(): Promise<void>;
}

/** Starts the proxy on 127.0.0.1 (a port of its own); nothing else than this worker's Chromium is meant to use it. */
export async function startAddressProxy(
  policy: AddressPolicy = (a) => (currentConfig().browser.allow_private ? undefined : blockedAddressReason(a)),
  resolve?: Resolve,
): Promise<AddressProxy> {
  const front = proxyFront(guardedReach(policy, resolve), 'tether browser proxy');
  const server: Server = createServer((s) => {
    s.on('error', () => s.destroy());
    front.emit('connection', s);
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', ok);
  });
  server.unref();
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((ok) => server.close(() => ok())),
  };
}
