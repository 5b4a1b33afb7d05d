// The browser_* tools against real headless Chromium (Debian's /usr/bin/chromium) and pages served on 127.0.0.1,
// reached by a name the egress policy allows and maps there (egress.resolve): every request goes through the task's
// browser proxy and the egress gate, outside a run (only allowed hosts pass). Worker-only.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { browserPool, closeAllBrowsers } from '../src/browser/session-pool.js';
import { parseConfig } from '../src/config/config.js';
import { setCurrentConfig } from '../src/config/current.js';
import { registry } from '../src/registry/index.js';
import type { ToolContext } from '../src/registry/types.js';
import '../src/tools/browser.js';
import { egressGate } from '../src/environments/egress/gate.js';
import { EgressSchema } from '../src/environments/egress/settings.js';
import { startPageServer, type PageServer } from './support/page-server.js';

const html = { 'content-type': 'text/html; charset=utf-8' };
const GREETER = `<!doctype html><html><head><title>Greeter</title></head><body>
<h1>Welcome</h1><p>Some intro text.</p><a href="/next">Next page</a> <a href="/next" target="_blank">Open in new tab</a>
<form onsubmit="event.preventDefault(); document.getElementById('out').textContent = 'Hello, ' + document.getElementById('name').value;">
<label for="name">Your name</label><input id="name" name="name" placeholder="Name here"><button type="submit">Greet</button>
<input type="password" name="pw" value="hunter2"><select name="colour"><option>Red</option><option selected>Green</option></select>
<input type="checkbox" name="agree" checked></form>
<p id="out"></p><img alt="A cat" width="10" height="10">
<div style="display:none">SECRET-NONE</div><span style="visibility:hidden">SECRET-INVISIBLE</span><div aria-hidden="true">SECRET-ARIA</div>
<button style="display:none">SECRET-BUTTON</button>
</body></html>`;

let server: PageServer;
let counter = 0;

function task(): ToolContext {
  counter += 1;
  return { taskId: `browser-test-${counter}`, cwd: realpathSync(mkdtempSync(join(tmpdir(), 'tether-browser-'))) };
}

async function call(ctx: ToolContext, tool: string, args: object = {}): Promise<Record<string, unknown>> {
  return JSON.parse(await registry.dispatch(tool, JSON.stringify(args), ctx)) as Record<string, unknown>;
}

function refOf(snapshot: unknown, pattern: string): string {
  const line = String(snapshot)
    .split('\n')
    .find((l) => l.includes(pattern));
  const ref = line && /\[(e\d+)\]$/.exec(line)?.[1];
  if (!ref) throw new Error(`no ref on a line with ${pattern} in:\n${String(snapshot)}`);
  return ref;
}

/** The pages' name: allowed by the egress policy, and mapped to the page server (nothing else can reach it). */
const SITE = 'pages.example.test';
const site = (path: string): string => `http://${SITE}${path}`;

function browserConfig(extra: object = {}): void {
  setCurrentConfig(parseConfig({ browser: { ...extra } }));
}

beforeAll(async () => {
  server = await startPageServer({
    '/': { headers: html, body: GREETER },
    '/next': {
      headers: html,
      body: '<html><head><title>Next</title></head><body><h2>The next page</h2></body></html>',
    },
    '/long': {
      headers: html,
      body: `<html><body><h1>Long</h1>${'<p style="height:400px">block</p>'.repeat(15)}<p>The end</p></body></html>`,
    },
    '/huge': {
      headers: html,
      body: `<html><body>${Array.from({ length: 4000 }, (_, i) => `<p>paragraph number ${i}</p>`).join('')}</body></html>`,
    },
    '/missing': { status: 404, headers: html, body: '<html><body><h1>Not here</h1></body></html>' },
  });
  const closed = await startPageServer();
  await closed.close();
  egressGate().configure({
    policy: EgressSchema.parse({
      allow: [SITE, 'closed.example.test'],
      resolve: { [SITE]: new URL(server.origin).host, 'closed.example.test': new URL(closed.origin).host },
    }),
  });
});

afterEach(() => browserConfig());

afterAll(async () => {
  await closeAllBrowsers();
  await server.close();
});

describe('browser tools (real headless Chromium, pages on 127.0.0.1 by an allowed name)', () => {
  beforeAll(() => browserConfig());

  test('navigate returns title, URL and a snapshot with refs; hidden elements and password values stay out', async () => {
    const ctx = task();
    const page = await call(ctx, 'browser_navigate', { url: site('/') });
    expect(page.title).toBe('Greeter');
    expect(page.url).toBe(site('/'));
    const snap = String(page.snapshot);
    expect(snap).toMatch(/^Title: Greeter\nURL: http:\/\/pages\.example\.test\/\n/);
    expect(snap).toContain('\n# Welcome\nSome intro text.\n');
    expect(snap).toMatch(/\nlink "Next page" -> \/next \[e\d+\]/);
    expect(snap).toMatch(
      /\nform\n {2}Your name\n {2}input\[text\] "Your name" name="name" placeholder="Name here" value="" \[e\d+\]\n {2}button "Greet" \[e\d+\]/,
    );
    expect(snap).toMatch(/input\[password\] name="pw" value="\(set\)" \[e\d+\]/);
    expect(snap).toMatch(/select "colour" selected="Green" options: Red, Green \[e\d+\]/);
    expect(snap).toMatch(/checkbox "agree" checked \[e\d+\]/);
    expect(snap).toContain('image "A cat"');
    for (const hidden of ['SECRET-NONE', 'SECRET-INVISIBLE', 'SECRET-ARIA', 'SECRET-BUTTON', 'hunter2'])
      expect(snap).not.toContain(hidden);
    // Refs are stable within one document: a second snapshot hands out the same ones.
    const again = await call(ctx, 'browser_snapshot');
    expect(refOf(again.snapshot, 'button "Greet"')).toBe(refOf(snap, 'button "Greet"'));
  });

  test('type into the input and click the button: the greeting appears; submit: true presses Enter', async () => {
    const ctx = task();
    const { snapshot } = await call(ctx, 'browser_navigate', { url: site('/') });
    const typed = await call(ctx, 'browser_type', { ref: refOf(snapshot, 'input[text]'), text: 'Ada' });
    expect(typed.action).toMatch(/typed 3 characters/);
    expect(String(typed.snapshot)).toContain('value="Ada"');
    const clicked = await call(ctx, 'browser_click', { ref: `[${refOf(snapshot, 'button "Greet"')}]` });
    expect(String(clicked.snapshot)).toContain('\nHello, Ada');
    const submitted = await call(ctx, 'browser_type', {
      ref: refOf(snapshot, 'input[text]'),
      text: 'Grace',
      submit: true,
    });
    expect(String(submitted.snapshot)).toContain('\nHello, Grace');
  });

  test('a link opens the next page, back returns, and there is nothing before the first page', async () => {
    const ctx = task();
    const { snapshot } = await call(ctx, 'browser_navigate', { url: site('/') });
    const next = await call(ctx, 'browser_click', { ref: refOf(snapshot, 'link "Next page"') });
    expect(String(next.snapshot)).toContain(`URL: ${site('/next')}`);
    expect(String(next.snapshot)).toContain('## The next page');
    const back = await call(ctx, 'browser_back');
    expect(back.url).toBe(site('/'));
    expect(String(back.snapshot)).toContain('# Welcome');
    expect((await call(ctx, 'browser_back')).error).toBe('there is no previous page in this tab');
    // The first page is still there after the refused back.
    expect(String((await call(ctx, 'browser_snapshot')).snapshot)).toContain('# Welcome');
  });

  test('a link with target=_blank moves the task to the new tab', async () => {
    const ctx = task();
    const { snapshot } = await call(ctx, 'browser_navigate', { url: site('/') });
    const opened = await call(ctx, 'browser_click', { ref: refOf(snapshot, 'link "Open in new tab"') });
    expect(String(opened.snapshot)).toContain('## The next page');
  });

  test('a stale or malformed ref is an error naming it', async () => {
    const ctx = task();
    await call(ctx, 'browser_navigate', { url: site('/') });
    expect((await call(ctx, 'browser_click', { ref: 'e999' })).error).toMatch(
      /no element \[e999\] on the current page.*browser_snapshot/,
    );
    expect((await call(ctx, 'browser_type', { ref: 'the button', text: 'x' })).error).toMatch(
      /ref "the button" is not an element reference/,
    );
  });

  test('refs of an old page do not resolve on a new one', async () => {
    const ctx = task();
    const { snapshot } = await call(ctx, 'browser_navigate', { url: site('/') });
    const button = refOf(snapshot, 'button "Greet"');
    await call(ctx, 'browser_navigate', { url: site('/long') });
    expect((await call(ctx, 'browser_click', { ref: button })).error).toContain(`no element [${button}]`);
  });

  test('scroll moves the page and the snapshot says where it is', async () => {
    const ctx = task();
    const first = await call(ctx, 'browser_navigate', { url: site('/long') });
    expect(String(first.snapshot)).toMatch(/Scroll: 0 of \d+ px/);
    const down = await call(ctx, 'browser_scroll', { direction: 'down', amount: 1000 });
    expect(down.scroll_y).toBe(1000);
    expect(String(down.snapshot)).toMatch(/Scroll: 1000 of \d+ px/);
    const up = await call(ctx, 'browser_scroll', { direction: 'up' });
    expect(up.scroll_y).toBe(1000 - 576); // 80% of the 720 px viewport
    await call(ctx, 'browser_scroll', { direction: 'up', amount: 100_000 });
    expect((await call(ctx, 'browser_scroll', { direction: 'up' })).action).toMatch(/already at the top/);
  });

  test('screenshot writes a real PNG under the working directory and returns its size, not its bytes', async () => {
    const ctx = task();
    await call(ctx, 'browser_navigate', { url: site('/long') });
    const shot = await call(ctx, 'browser_screenshot');
    expect(Object.keys(shot).sort()).toEqual(['full_page', 'height', 'path', 'width']);
    expect(String(shot.path).startsWith(join(ctx.cwd, '.tether-screenshots') + '/')).toBe(true);
    const png = readFileSync(String(shot.path));
    expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    expect(png.length).toBeGreaterThan(100);
    expect([shot.width, shot.height]).toEqual([1280, 720]);
    const full = await call(ctx, 'browser_screenshot', { full_page: true });
    expect(full.path).not.toBe(shot.path);
    expect(Number(full.height)).toBeGreaterThan(6000);
  });

  test('close, then snapshot: there is no page; close again says so', async () => {
    const ctx = task();
    expect((await call(ctx, 'browser_snapshot')).error).toMatch(/no page is open.*browser_navigate/);
    await call(ctx, 'browser_navigate', { url: site('/') });
    expect(await call(ctx, 'browser_close')).toEqual({ closed: true });
    expect((await call(ctx, 'browser_snapshot')).error).toMatch(/no page is open/);
    expect((await call(ctx, 'browser_click', { ref: 'e1' })).error).toMatch(/no page is open/);
    expect(await call(ctx, 'browser_close')).toEqual({ closed: false, note: 'no page was open' });
  });

  test('tasks have their own pages', async () => {
    const a = task();
    const b = task();
    await call(a, 'browser_navigate', { url: site('/') });
    await call(b, 'browser_navigate', { url: site('/next') });
    expect(String((await call(a, 'browser_snapshot')).snapshot)).toContain('# Welcome');
    expect(String((await call(b, 'browser_snapshot')).snapshot)).toContain('## The next page');
  });

  test('a huge page gives a bounded snapshot with a notice; an HTTP error status is reported', async () => {
    const ctx = task();
    const huge = await call(ctx, 'browser_navigate', { url: site('/huge') });
    expect(String(huge.snapshot).length).toBeLessThanOrEqual(20_000);
    expect(String(huge.snapshot)).toMatch(/\[snapshot cut at 20000 characters: (at least )?\d+ more lines not shown/);
    const missing = await call(ctx, 'browser_navigate', { url: site('/missing') });
    expect(missing.status).toBe(404);
    expect(String(missing.snapshot)).toContain('# Not here');
  });

  test('a refused connection is reported by the browser proxy, as a 502 the model sees', async () => {
    const r = await call(task(), 'browser_navigate', { url: 'http://closed.example.test/' });
    expect(r.status).toBe(502);
    expect(String(r.snapshot)).toMatch(
      /tether browser proxy: closed\.example\.test:80 did not answer \(127\.0\.0\.1: ECONNREFUSED\)/,
    );
  });

  test('a page unused past browser.idle_seconds is closed', async () => {
    browserConfig({ idle_seconds: 0.5 });
    const ctx = task();
    await call(ctx, 'browser_navigate', { url: site('/') });
    expect(browserPool.hasTask(ctx.taskId)).toBe(true);
    await expect.poll(() => browserPool.hasTask(ctx.taskId), { timeout: 10_000, interval: 100 }).toBe(false);
    expect((await call(ctx, 'browser_snapshot')).error).toMatch(/no page is open/);
  });

  test('a killed browser is reported, and the next navigate relaunches it', async () => {
    const ctx = task();
    await call(ctx, 'browser_navigate', { url: site('/') });
    killChromium();
    expect((await call(ctx, 'browser_snapshot')).error).toMatch(/crash/);
    const again = await call(ctx, 'browser_navigate', { url: site('/next') });
    expect(String(again.snapshot)).toContain('## The next page');
    killChromium();
    // Straight to navigate, no call in between to notice the crash: it is retried once on a fresh browser.
    const third = await call(ctx, 'browser_navigate', { url: site('/') });
    expect(String(third.snapshot)).toContain('# Welcome');
  });
});

/** SIGKILLs the Chromium processes this test process started (Debian's wrapper execs the real binary). */
function killChromium(): void {
  const pids = execFileSync('pgrep', ['-P', String(process.pid), 'chromium'], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .filter(Boolean);
  expect(pids.length).toBeGreaterThan(0);
  for (const pid of pids) process.kill(Number(pid), 'SIGKILL');
}

describe('browser tools: policy and availability', () => {
  test('this machine, a host nobody allowed (outside a run: nobody to ask) and file:// are refused before the browser opens', async () => {
    const ctx = task();
    const port = new URL(server.origin).port;
    expect((await call(ctx, 'browser_navigate', { url: `http://127.0.0.1:${port}/` })).error).toMatch(
      /refused to open http:\/\/127\.0\.0\.1:\d+\/: 127\.0\.0\.1 is a loopback \(this machine\) address/,
    );
    expect((await call(ctx, 'browser_navigate', { url: 'http://localhost/' })).error).toMatch(
      /localhost is this machine/,
    );
    expect((await call(ctx, 'browser_navigate', { url: 'http://elsewhere.example.test/' })).error).toMatch(
      /elsewhere\.example\.test:80 is not in terminal\.local\.sandbox\.egress\.allow, and there is no run to ask/,
    );
    expect((await call(ctx, 'browser_navigate', { url: 'file:///etc/passwd' })).error).toMatch(
      /only http and https URLs can be opened, not file:/,
    );
    expect(browserPool.hasTask(ctx.taskId)).toBe(false);
  });

  test("navigate's description mentions web_extract / web_search only when they are in the final list", () => {
    const entry = registry.get('browser_navigate');
    const patch = entry?.schemaPatch;
    if (!entry || !patch) throw new Error('browser_navigate has no schemaPatch');
    const base = {
      type: 'function' as const,
      function: { name: entry.name, description: entry.description, parameters: entry.parameters },
    };
    const alone = patch(base, new Set(['browser_navigate', 'browser_click']));
    expect(alone.function.description).not.toMatch(/web_extract|web_search/);
    expect(patch(base, new Set(['browser_navigate', 'web_extract'])).function.description).toMatch(
      /web_extract is faster\.$/,
    );
    const both = patch(base, new Set(['browser_navigate', 'web_extract', 'web_search'])).function.description;
    expect(both).toMatch(/For reading a page's text or searching, web_extract \/ web_search are faster\.$/);
    // Through the registry too: without the web tools registered here, the final list has none.
    const [definition] = registry.getDefinitions(['browser_navigate']);
    expect(definition?.function.description).toBe(entry.description);
  });

  test('the tools are hidden, with the reason, when executable_path points to a missing file', () => {
    const names = registry
      .all()
      .filter((t) => t.toolset === 'browser')
      .map((t) => t.name);
    expect(names.sort()).toEqual([
      'browser_back',
      'browser_click',
      'browser_close',
      'browser_navigate',
      'browser_screenshot',
      'browser_scroll',
      'browser_snapshot',
      'browser_type',
    ]);
    setCurrentConfig(parseConfig({ browser: { executable_path: '/nonexistent/chromium' } }));
    const entry = registry.get('browser_click');
    if (!entry) throw new Error('browser_click is not registered');
    const verdict = registry.availability(entry);
    expect(verdict.available).toBe(false);
    expect(verdict.available ? '' : verdict.reason).toMatch(
      /no Chromium found: install Debian's chromium or set browser\.executable_path.*\/nonexistent\/chromium/,
    );
    expect(registry.getDefinitions(names)).toEqual([]);
    setCurrentConfig(parseConfig({}));
    expect(registry.getDefinitions(names)).toHaveLength(names.length);
  });
});
