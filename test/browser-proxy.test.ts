// A task's browser proxy with real headless Chromium, launched with the browser pool's own flags: a page on a host
// the egress policy allows tries every way out it has (a redirect, images, scripts, fetch, an iframe, a stylesheet,
// websockets, WebTransport over UDP, a service worker) to a host in egress.deny, to this machine, and to names nobody allowed; none of those
// requests arrives, no such name is resolved, and the call's refusals name them. Outside a run nobody can be asked,
// so only allowed hosts pass. Traffic stays on 127.0.0.x: the allowed and denied names are mapped to loopback servers
// by egress.resolve (the allowed one is reachable only through that map, so a page that loads proves the proxy).
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ContextProxy } from '../src/browser/context-proxy.js';
import { findBrowser, requireBrowser } from '../src/browser/find-browser.js';
import { playwright } from '../src/browser/playwright-module.js';
import { LAUNCH_ARGS } from '../src/browser/session-pool.js';
import { egressGate } from '../src/environments/egress/gate.js';
import { EgressSchema } from '../src/environments/egress/settings.js';
import { CallNetwork } from '../src/tool-egress/call-network.js';

const noBrowser =
  findBrowser(undefined) === undefined ? 'no Chromium on this machine (Debian package chromium)' : undefined;
const SITE = 'site.example.test';
/** Allowed for reading only (mapped to the forbidden server): the browser's requests there cannot be judged one by one. */
const READ_ONLY = 'read-only.example.test';
/** Requests that reached the server standing in for forbidden places (a denied host, and 127.0.0.2 itself). */
const forbiddenHits: string[] = [];
/** Requests the allowed site got, with the Host header. */
const siteHits: string[] = [];
const resolved: string[] = [];
let forbidden: Server;
/** WebTransport (HTTP/3) would go around an HTTP proxy over UDP: datagrams that reached 127.0.0.2:4433. */
let datagrams = 0;
let udp: UdpSocket;
let site: Server;
let forbiddenPort = 0;
let sitePort = 0;
let proxy: ContextProxy;
let browser: Browser;
let context: BrowserContext;
let net: CallNetwork;

function listen(server: Server, host: string): Promise<number> {
  return new Promise((ok) => server.listen(0, host, () => ok((server.address() as { port: number }).port)));
}

/** Every way a page reaches elsewhere, aimed at `to` (an origin). */
const escapes = (to: string, ws: string): string => `
<img src="${to}/img.png">
<link rel="stylesheet" href="${to}/style.css">
<iframe src="${to}/frame"></iframe>
<script src="${to}/script.js"></script>
<script>
  fetch("${to}/fetch").catch(() => {});
  navigator.sendBeacon("${to}/beacon", "data");
  try { new WebSocket("${ws}/socket"); } catch (e) {}
  try { new WebTransport("https://127.0.0.2:4433/wt").ready.catch(() => {}); } catch (e) {}
</script>`;

beforeAll(async () => {
  if (noBrowser) return;
  const record = (into: string[]) => (req: IncomingMessage) =>
    into.push(`${(req.headers.host ?? '').replace(/:\d+$/, '')}${req.url ?? ''}`);
  forbidden = createServer((req, res) => {
    record(forbiddenHits)(req);
    res.end('FORBIDDEN-CONTENT');
  });
  forbidden.on('upgrade', (req, socket) => {
    record(forbiddenHits)(req);
    socket.destroy();
  });
  forbiddenPort = await listen(forbidden, '127.0.0.2');
  udp = createSocket('udp4');
  udp.on('message', () => (datagrams += 1));
  await new Promise<void>((ok) => udp.bind(4433, '127.0.0.2', ok));
  site = createServer((req, res) => {
    record(siteHits)(req);
    const url = new URL(req.url ?? '/', 'http://x');
    const html = (body: string): void => {
      res.setHeader('content-type', 'text/html');
      res.end(`<html><body><h1>the site</h1>${body}</body></html>`);
    };
    if (url.pathname === '/to-denied') {
      res.writeHead(302, { location: 'http://denied.example.test/landing' });
      return res.end();
    }
    if (url.pathname === '/to-loopback') {
      res.writeHead(302, { location: `http://127.0.0.2:${forbiddenPort}/landing` });
      return res.end();
    }
    if (url.pathname === '/escapes') {
      return html(
        escapes('http://denied.example.test', 'ws://denied.example.test') +
          escapes(`http://127.0.0.2:${forbiddenPort}`, `ws://127.0.0.2:${forbiddenPort}`) +
          // The site's own server by its loopback address: the proxy is not bypassed for loopback either.
          escapes(`http://127.0.0.1:${sitePort}`, `ws://127.0.0.1:${sitePort}`) +
          escapes('http://secret-4321.unlisted.example.invalid', 'wss://secret-8765.unlisted.example.invalid'),
      );
    }
    if (url.pathname === '/to-read-only') {
      // A form's POST and a script's PUT to a host allowed for reading only: the proxy cannot read them here.
      return html(`<form method="post" action="http://${READ_ONLY}/form"><input name="d" value="DATA"></form>
        <script>fetch("http://${READ_ONLY}/put", { method: "PUT", body: "DATA", mode: "no-cors" }).catch(() => {});
        fetch("https://${READ_ONLY}/tls", { method: "POST", body: "DATA", mode: "no-cors" }).catch(() => {});
        document.forms[0].submit();</script>`);
    }
    if (url.pathname === '/worker') {
      return html(`<script>navigator.serviceWorker.register("/sw.js").then(
        () => navigator.serviceWorker.ready).then(() => document.title = "worker ready", (e) => document.title = "worker failed: " + e);</script>`);
    }
    if (url.pathname === '/sw.js') {
      res.setHeader('content-type', 'text/javascript');
      return res.end(`self.addEventListener('install', (e) => e.waitUntil(Promise.all([
        fetch('/from-worker').catch(() => 0),
        fetch('http://denied.example.test/from-worker').catch(() => 0),
        fetch('http://127.0.0.2:${forbiddenPort}/from-worker').catch(() => 0),
        fetch('http://secret-1357.unlisted.example.invalid/from-worker').catch(() => 0),
      ])));`);
    }
    return html('<p>plain</p>');
  });
  sitePort = await listen(site, '127.0.0.1');
  egressGate().configure({
    policy: EgressSchema.parse({
      allow: [SITE, { host: READ_ONLY, access: 'read' }],
      deny: ['denied.example.test'],
      resolve: {
        [SITE]: `127.0.0.1:${sitePort}`,
        'denied.example.test': `127.0.0.2:${forbiddenPort}`,
        [READ_ONLY]: `127.0.0.2:${forbiddenPort}`,
      },
    }),
    resolver: async (name) => {
      resolved.push(name);
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
    },
  });
  proxy = await ContextProxy.start();
  const { chromium } = await playwright();
  browser = await chromium.launch({
    executablePath: requireBrowser(),
    chromiumSandbox: process.getuid?.() !== 0,
    // The pool's flags; service workers need a secure origin, which this one is made for the test.
    args: [...LAUNCH_ARGS, `--unsafely-treat-insecure-origin-as-secure=http://${SITE}`],
  });
  context = await browser.newContext({ proxy: { server: proxy.url, bypass: '<-loopback>' } });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await proxy?.close();
  forbidden?.close();
  site?.close();
  udp?.close();
});

let page: Page;
beforeEach(async () => {
  if (noBrowser) return;
  net = new CallNetwork('browser_navigate', { taskId: 'browser-proxy-test' }, { kind: 'gate' }, undefined);
  page = await context.newPage();
  proxy.serve({ net, call: 'browser_navigate (test)', page: () => page.url() });
});

it('a page on an allowed host loads; none of its requests elsewhere arrives, and no name is looked up', async (ctx) => {
  if (noBrowser) return ctx.skip(noBrowser);
  await page.goto(`http://${SITE}/escapes`);
  expect(await page.textContent('h1')).toBe('the site');
  await page.waitForLoadState('networkidle').catch(() => undefined);
  expect(forbiddenHits).toEqual([]);
  expect(datagrams).toBe(0);
  expect(siteHits.filter((h) => !h.startsWith(SITE))).toEqual([]);
  expect(resolved).toEqual([]);
  const refusals = net.refusals.join('\n');
  expect(refusals).toMatch(/denied\.example\.test:80 is in terminal\.local\.sandbox\.egress\.deny/);
  expect(refusals).toMatch(/127\.0\.0\.2 is a loopback \(this machine\) address/);
  expect(refusals).toMatch(
    /secret-4321\.unlisted\.example\.invalid:80 is not in terminal\.local\.sandbox\.egress\.allow/,
  );
  expect(refusals).toMatch(
    /secret-8765\.unlisted\.example\.invalid:443 is not in terminal\.local\.sandbox\.egress\.allow/,
  );
}, 60_000);

it('a redirect to a denied host or to this machine is refused at the proxy', async (ctx) => {
  if (noBrowser) return ctx.skip(noBrowser);
  for (const path of ['/to-denied', '/to-loopback']) {
    const r = await page.goto(`http://${SITE}${path}`).catch((e: Error) => e);
    const body = r instanceof Error ? r.message : await page.content();
    expect(body).not.toContain('FORBIDDEN-CONTENT');
  }
  expect(forbiddenHits).toEqual([]);
  expect(net.refusals.join('\n')).toMatch(/denied\.example\.test:80 is in terminal\.local\.sandbox\.egress\.deny/);
  expect(net.refusals.join('\n')).toMatch(/127\.0\.0\.2 is a loopback/);
}, 60_000);

it('a host allowed for reading only is not reached by the browser unasked: its POST and PUT never arrive', async (ctx) => {
  if (noBrowser) return ctx.skip(noBrowser);
  await page.goto(`http://${SITE}/to-read-only`).catch(() => undefined);
  await page.waitForLoadState('networkidle').catch(() => undefined);
  await expect
    .poll(() => net.refusals.filter((r) => r.includes(READ_ONLY)).length, { timeout: 10_000 })
    .toBeGreaterThanOrEqual(2);
  expect(forbiddenHits).toEqual([]);
  expect(resolved).toEqual([]);
  expect(net.refusals.join('\n')).toMatch(
    /read-only\.example\.test:80 is allowed only request by request, by egress\.allow: read-only\.example\.test \(read\), and this tool's HTTPS is not read by the proxy, and there is no run to ask/,
  );
  expect(net.refusals.join('\n')).toMatch(/read-only\.example\.test:443 is allowed only request by request/);
}, 60_000);

it("a service worker's requests go through the same proxy: its allowed fetch arrives, the others do not", async (ctx) => {
  if (noBrowser) return ctx.skip(noBrowser);
  await page.goto(`http://${SITE}/worker`);
  await expect.poll(() => page.title(), { timeout: 20_000 }).toMatch(/^worker/);
  expect(await page.title()).toBe('worker ready');
  // The worker's own fetch of the allowed site came through the proxy (nothing else can reach that name).
  await expect.poll(() => siteHits.includes(`${SITE}/from-worker`), { timeout: 10_000 }).toBe(true);
  expect(forbiddenHits).toEqual([]);
  expect(resolved).toEqual([]);
  expect(net.refusals.join('\n')).toMatch(/secret-1357\.unlisted\.example\.invalid:80/);
}, 60_000);
