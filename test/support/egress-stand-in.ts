// Stand-ins for outside hosts in the egress tests: one HTTP server on 127.0.0.1 that answers every host name
// (mapped to it by terminal.local.sandbox.egress.resolve) and counts the requests each name got. Traffic stays on
// loopback.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StandIn {
  port: number;
  /** `127.0.0.1:port`, as egress.resolve wants it. */
  address: string;
  /** Requests seen, by the Host header's name (port dropped). */
  hits(host: string): number;
  total(): number;
  close(): Promise<void>;
}

export async function startStandIn(): Promise<StandIn> {
  const hits = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    hits.set(host, (hits.get(host) ?? 0) + 1);
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(`hello from ${host}${req.url ?? ''}\n`);
  });
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
