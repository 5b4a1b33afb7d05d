// Benchmark (not a test), part of `npm run bench:environments`: what the run's egress policy adds to one web_extract
// fetch. The same page from the same loopback server, fetched two ways in the same run, alternating: as web_extract
// sent it before the policy (node:http with the global agent, straight to the address), and through the policy
// (fetchPage: the egress gate's decision for the host, allowed by egress.allow; the gate's connection, to a name
// egress.resolve maps to the server). Traffic stays on 127.0.0.1.
import { request, createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { egressGate } from '../src/environments/egress/gate.js';
import { EgressSchema } from '../src/environments/egress/settings.js';
import { CallNetwork, setToolEgressLog } from '../src/tool-egress/call-network.js';
import { fetchPage } from '../src/web/fetch-page.js';
import { fmt, silent, summary } from './stats.js';

const REQUESTS = 400;
const WARMUP = 20;
const PAGE = `<html><head><title>bench</title></head><body><p>${'otters '.repeat(200)}</p></body></html>`;
const HEADERS = {
  'user-agent': 'tether-bench',
  accept: 'text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5',
  'accept-encoding': 'gzip, deflate, br',
};

/** The fetch as web_extract made it before: one GET through Node's global agent (kept-alive connections), body read. */
function straight(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'GET', headers: HEADERS }, (res: IncomingMessage) => {
      let n = 0;
      res.on('data', (c: Buffer) => (n += c.length));
      res.on('end', () => resolve(n));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

async function timed(n: number, fn: () => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n + WARMUP; i++) {
    const t0 = performance.now();
    await fn();
    if (i >= WARMUP) out.push(performance.now() - t0);
  }
  return out;
}

export async function benchWebEgress(): Promise<void> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html', 'content-length': String(Buffer.byteLength(PAGE)) });
    res.end(PAGE);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  egressGate().configure({
    policy: EgressSchema.parse({
      allow: ['bench.example.test'],
      resolve: { 'bench.example.test': `127.0.0.1:${port}` },
    }),
    log: silent,
  });
  setToolEgressLog(silent);
  const net = (): CallNetwork => new CallNetwork('web_extract', { taskId: 'bench' }, { kind: 'gate' }, undefined);
  const opts = {
    timeoutMs: 10_000,
    maxBytes: 5_000_000,
    userAgent: 'tether-bench',
    acceptTypes: new Set(['text/html']),
  };
  const direct = (): Promise<number> => straight(`http://127.0.0.1:${port}/`);
  // A call network per fetch, as each web_extract call makes one.
  const gated = (): Promise<unknown> => fetchPage('http://bench.example.test/', { ...opts, net: net() });
  try {
    // Twice each way, alternating, so a burst of load on the machine does not land on one side only.
    const d1 = await timed(REQUESTS, direct);
    const g1 = await timed(REQUESTS, gated);
    const d2 = await timed(REQUESTS, direct);
    const g2 = await timed(REQUESTS, gated);
    const before = summary([...d1, ...d2]);
    const after = summary([...g1, ...g2]);
    console.log(
      `web_extract fetch (${2 * REQUESTS} each, same page and server): as before the policy (node:http, kept-alive agent) ` +
        `median ${fmt(before.median, 3)} ms, p99 ${fmt(before.p99, 3)} ms · through the egress policy ` +
        `(gate decision, gate's connection) median ${fmt(after.median, 3)} ms, p99 ${fmt(after.p99, 3)} ms · ` +
        `+${fmt(after.median - before.median, 3)} ms per request (target <= 1 ms)`,
    );
  } finally {
    server.close();
    setToolEgressLog(silent);
  }
}
