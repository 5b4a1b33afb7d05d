// Test support: a real HTTP server on 127.0.0.1 serving a map of path -> page, plus fixed pages for the web and browser tools.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TestPage {
  status?: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Waits this long before answering (a slow page). */
  delayMs?: number;
}

export type PageHandler = (req: IncomingMessage, res: ServerResponse) => void;

export interface PageServer {
  /** http://127.0.0.1:<port> */
  origin: string;
  url(path: string): string;
  /** Adds or replaces a page while the server runs. */
  set(path: string, page: TestPage | PageHandler): void;
  /** Paths requested so far, in order (with their query). */
  requests: string[];
  /** The Host header of each of those requests (port dropped): which name a request was sent for. */
  hosts: string[];
  close(): Promise<void>;
}

const ARTICLE_TEXT = [
  'Sea otters hold hands while they sleep so that they do not drift apart on the current. A group doing this is called a raft, and rafts of more than a hundred otters have been counted off the coast of California.',
  'An otter keeps a favourite stone in a pouch of loose skin under its foreleg and uses it to crack open clams and urchins on its chest. Researchers have watched the same animal carry the same stone for months.',
  'Their fur is the densest of any animal, with up to a million hairs in a square inch, which keeps them warm without a layer of blubber.',
];

/** The fixed pages every server has; tests add their own with `set` or the constructor map. */
export function fixedPages(): Record<string, TestPage> {
  const html = { 'content-type': 'text/html; charset=utf-8' };
  return {
    '/article': {
      headers: html,
      body: `<!doctype html><html><head><title>Otters | Marine Notes</title></head><body>
<header><div class="logo">Marine Notes</div><nav><a href="/">Home</a> <a href="/about">About us</a> <a href="/subscribe">Subscribe to our newsletter</a></nav></header>
<main><article><h1>How sea otters live</h1>${ARTICLE_TEXT.map((p) => `<p>${p}</p>`).join('\n')}</article></main>
<aside class="sidebar"><h3>Related</h3><a href="/seals">Seals</a></aside>
<footer><p>Copyright 2026 Marine Notes Ltd. All rights reserved.</p><a href="/cookies">Cookie settings</a></footer>
<script>window.tracking = "TRACKER-SCRIPT";</script></body></html>`,
    },
    '/plain.txt': { headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'line one\nline two\n' },
    '/data.json': { headers: { 'content-type': 'application/json' }, body: '{"otters": 3}' },
    '/image.png': {
      headers: { 'content-type': 'image/png' },
      body: Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'),
    },
    '/slow': { headers: html, body: '<html><body><p>late</p></body></html>', delayMs: 10_000 },
    '/redirect/1': { status: 302, headers: { location: '/redirect/2' } },
    '/redirect/2': { status: 301, headers: { location: '/redirect/3' } },
    '/redirect/3': { status: 307, headers: { location: '/article' } },
    '/loop': { status: 302, headers: { location: '/loop' } },
  };
}

/** The text of the fixed /article page's paragraphs, for assertions. */
export const ARTICLE_PARAGRAPHS: readonly string[] = ARTICLE_TEXT;

export async function startPageServer(extra: Record<string, TestPage | PageHandler> = {}): Promise<PageServer> {
  const pages = new Map<string, TestPage | PageHandler>(Object.entries({ ...fixedPages(), ...extra }));
  const requests: string[] = [];
  const hosts: string[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const server: Server = createServer((req, res) => {
    requests.push(req.url ?? '/');
    hosts.push((req.headers.host ?? '').replace(/:\d+$/, ''));
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const page = pages.get(path);
    if (!page) {
      res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>not found</body></html>');
      return;
    }
    if (typeof page === 'function') {
      page(req, res);
      return;
    }
    const answer = (): void => {
      if (res.destroyed) return;
      res.writeHead(page.status ?? 200, page.headers ?? {});
      res.end(page.body ?? '');
    };
    if (page.delayMs) {
      const t = setTimeout(() => {
        timers.delete(t);
        answer();
      }, page.delayMs);
      timers.add(t);
    } else {
      answer();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    url: (path) => `${origin}${path}`,
    set: (path, page) => void pages.set(path, page),
    requests,
    hosts,
    close: async () => {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
