// Test support: hosts that are not this machine, for the tools' egress tests: a network namespace joined to this one by
// a veth pair (10.x.y.1 here; 10.x.y.2 and 10.x.y.3 there), with an HTTP server on port 80 and a UDP socket on 3478
// inside, which record every request and datagram that arrives. Traffic stays on the pair. Needs root and `ip` (iproute2); a test
// file skips with outsideHostUnavailable()'s reason otherwise.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';

export interface OutsideRequest {
  method: string;
  url: string;
  /** The Host header, port dropped. */
  host: string;
  /** A websocket (or other) upgrade request. */
  upgrade: boolean;
}

export interface OutsideHost {
  /** The server's address (10.x.y.2): not an address of this machine. */
  address: string;
  /** A second address of the same server (10.x.y.3), for a host that must not share the first's address. */
  other: string;
  requests: OutsideRequest[];
  /** UDP datagrams that reached port 3478 (STUN). */
  datagrams: number;
  close(): Promise<void>;
}

/** Why the outside host cannot be made here, or undefined when it can. */
export function outsideHostUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'network namespaces need root';
  try {
    execFileSync('ip', ['-V'], { stdio: 'ignore' });
  } catch {
    return "'ip' (iproute2) is not installed";
  }
  return undefined;
}

const ip = (...args: string[]): void => {
  execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });
};

/**
 * The server inside. Paths: /redirect?to=URL (302 there), /page?html=HTML (that HTML), /image.png (a PNG), /sw.js (a
 * service worker that fetches ?fetch=URL on install), anything else "hello from outside PATH". Every request is
 * written as a JSON line; so is every datagram.
 */
const SERVER = String.raw`
const http = require('node:http');
const dgram = require('node:dgram');
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000' +
  '1f15c4890000000d49444154789c63f8cfc0f01f0005000201e2a1d6b50000000049454e44ae426082', 'hex');
const note = (o) => process.stdout.write(JSON.stringify(o) + '\n');
const seen = (req, upgrade) => note({ method: req.method, url: req.url, host: (req.headers.host || '').replace(/:\d+$/, ''), upgrade });
const server = http.createServer((req, res) => {
  seen(req, false);
  const url = new URL(req.url, 'http://x');
  if (url.pathname === '/redirect') { res.writeHead(302, { location: url.searchParams.get('to') }); return res.end(); }
  if (url.pathname === '/page') { res.writeHead(200, { 'content-type': 'text/html' }); return res.end(url.searchParams.get('html')); }
  if (url.pathname === '/image.png') { res.writeHead(200, { 'content-type': 'image/png' }); return res.end(PNG); }
  if (url.pathname === '/sw.js') {
    res.writeHead(200, { 'content-type': 'text/javascript' });
    return res.end("self.addEventListener('install', (e) => e.waitUntil(fetch(" + JSON.stringify(url.searchParams.get('fetch') || '') + ").catch(() => 0)));");
  }
  res.writeHead(200, { 'content-type': 'text/plain' });
  res.end('hello from outside ' + req.url + '\n');
});
server.on('upgrade', (req, socket) => { seen(req, true); socket.destroy(); });
const udp = dgram.createSocket('udp4');
udp.on('message', () => note({ datagram: true }));
udp.bind(3478, '0.0.0.0', () => server.listen(80, '0.0.0.0', () => note({ ready: true })));
`;

/** Makes the namespace and its server; close() removes both. */
export async function startOutsideHost(): Promise<OutsideHost> {
  const id = randomBytes(3).toString('hex');
  const ns = `tether-out-${id}`;
  const [here, there] = [`to${id}h`, `to${id}n`];
  // A /29 of 10.0.0.0/8 picked at random, so that tests running at once do not meet.
  const [a, b] = [200 + (randomBytes(1)[0]! % 50), randomBytes(1)[0]! & 0xf8];
  const net = `10.${a}.${b}`;
  ip('netns', 'add', ns);
  let child: ChildProcess | undefined;
  try {
    ip('link', 'add', here, 'type', 'veth', 'peer', 'name', there);
    ip('link', 'set', there, 'netns', ns);
    ip('addr', 'add', `${net}.1/29`, 'dev', here);
    ip('link', 'set', here, 'up');
    ip('netns', 'exec', ns, 'ip', 'addr', 'add', `${net}.2/29`, 'dev', there);
    ip('netns', 'exec', ns, 'ip', 'addr', 'add', `${net}.3/29`, 'dev', there);
    ip('netns', 'exec', ns, 'ip', 'link', 'set', there, 'up');
    ip('netns', 'exec', ns, 'ip', 'link', 'set', 'lo', 'up');
    child = spawn('ip', ['netns', 'exec', ns, process.execPath, '-e', SERVER], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const host: OutsideHost = {
      address: `${net}.2`,
      other: `${net}.3`,
      requests: [],
      datagrams: 0,
      close: async () => {
        child?.kill('SIGKILL');
        await new Promise((r) => (child?.exitCode !== null ? r(undefined) : child.once('exit', r)));
        remove(ns, here);
      },
    };
    const ready = new Promise<void>((resolve, reject) => {
      child!.once('exit', (code) => reject(new Error(`the outside host's server exited (${String(code)})`)));
      createInterface({ input: child!.stdout! }).on('line', (line) => {
        const m = JSON.parse(line) as Partial<OutsideRequest> & { ready?: boolean; datagram?: boolean };
        if (m.ready) resolve();
        else if (m.datagram) host.datagrams += 1;
        else host.requests.push(m as OutsideRequest);
      });
    });
    await ready;
    return host;
  } catch (err) {
    child?.kill('SIGKILL');
    remove(ns, here);
    throw err;
  }
}

function remove(ns: string, link: string): void {
  for (const args of [
    ['link', 'del', link],
    ['netns', 'del', ns],
  ]) {
    try {
      ip(...args);
    } catch {
      // Gone already (deleting the namespace removes the pair's other end, and with it this one).
    }
  }
}
