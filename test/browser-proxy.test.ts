// The browser's address proxy with real headless Chromium: a page the policy allows redirects, loads images and
// fetches from an address it refuses; none of those requests reaches that address. (Here "allowed" is 127.0.0.1 and
// "refused" 127.0.0.2, by a policy of the test's own: the default policy refuses both, and no public host is
// reachable from the tests.)
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startAddressProxy, type AddressProxy } from '../src/browser/address-proxy.js';
import { requireBrowser } from '../src/browser/find-browser.js';
import { playwright } from '../src/browser/playwright-module.js';

const victimHits: string[] = [];
let victim: Server;
let site: Server;
let proxy: AddressProxy;
let browser: Browser;

function listen(server: Server, host: string): Promise<number> {
  return new Promise((ok) => server.listen(0, host, () => ok((server.address() as { port: number }).port)));
}

let victimPort = 0;
beforeAll(async () => {
  victim = createServer((req, res) => {
    victimHits.push(req.url ?? '');
    res.end('INTERNAL-SECRET');
  });
  victimPort = await listen(victim, '127.0.0.2');
  site = createServer((req, res) => {
    const internal = `http://127.0.0.2:${victimPort}`;
    if (req.url === '/redir') {
      res.writeHead(302, { location: `${internal}/admin` });
      res.end();
      return;
    }
    res.setHeader('content-type', 'text/html');
    res.end(
      `<html><body><h1>public page</h1><img src="${internal}/img"><script>fetch("${internal}/fetch").catch(()=>{});</script></body></html>`,
    );
  });
  const sitePort = await listen(site, '127.0.0.1');
  // The site is "public.test", resolved by the proxy; the policy refuses 127.0.0.2 only.
  proxy = await startAddressProxy(
    (a) => (a === '127.0.0.2' ? `${a} is internal` : undefined),
    async (host) => (host === 'public.test' ? ['127.0.0.1'] : []),
  );
  const { chromium } = await playwright();
  browser = await chromium.launch({
    executablePath: requireBrowser(),
    chromiumSandbox: process.getuid?.() !== 0,
    args: [
      '--disable-background-networking',
      '--no-first-run',
      `--proxy-server=${proxy.url}`,
      '--proxy-bypass-list=<-loopback>',
    ],
  });
  process.env.TETHER_TEST_SITE_PORT = String(sitePort);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await proxy?.close();
  victim?.close();
  site?.close();
});

it('refuses a redirect, images and fetches to a refused address, and still serves the allowed page', async () => {
  const page = await browser.newPage();
  const port = process.env.TETHER_TEST_SITE_PORT;
  await page.goto(`http://public.test:${port}/`);
  expect(await page.textContent('h1')).toBe('public page');
  // goto waited for the load event, so the image was tried; the fetch is awaited here.
  expect(await page.evaluate('document.querySelector("img").naturalWidth')).toBe(0);
  const fetched = await page.evaluate(async (url) => {
    try {
      return await (await fetch(url)).text();
    } catch {
      return 'refused';
    }
  }, `http://127.0.0.2:${victimPort}/fetch-2`);
  expect(fetched).not.toContain('INTERNAL-SECRET');
  const redirected = await page.goto(`http://public.test:${port}/redir`).catch((e: Error) => e);
  const body = redirected instanceof Error ? redirected.message : await page.content();
  expect(body).not.toContain('INTERNAL-SECRET');
  expect(body).toMatch(/tether browser proxy: refused: 127\.0\.0\.2 is internal/);
  // Direct, too: a loopback address is not bypassed.
  const direct = await page.goto(`http://127.0.0.2:${victimPort}/direct`).catch((e: Error) => e);
  expect(direct instanceof Error ? direct.message : await page.content()).not.toContain('INTERNAL-SECRET');
  expect(victimHits).toEqual([]);
}, 60_000);
