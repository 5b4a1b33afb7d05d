// What each browser_* tool does to the task's page; src/tools/browser.ts registers them. Worker-only.
import { join } from 'node:path';
import { writeTaskFile } from '../files/task-files.js';
import type { Page } from 'playwright-core';
import { isTetherError, toolError } from '../common/errors.js';
import type { ToolContext } from '../registry/types.js';
import { browserPool, isBrowserGone, type TaskPage } from './session-pool.js';
import { locateRef, normalizeRef, snapshotPage } from './snapshot.js';
import { CallNetwork } from '../tool-egress/call-network.js';
import { shownUrl, toolUrl } from '../tool-egress/tool-url.js';
import { NetworkClock } from '../web/network-clock.js';

const NAVIGATION_TIMEOUT_MS = 30_000;
const ACTION_TIMEOUT_MS = 10_000;
/** Network idle after load is waited for only this long: pages that poll or stream never go idle. */
const IDLE_WAIT_MS = 2_000;
/** Whether the element with this ref is a link that opens in another tab (source, as for the snapshot walk). */
const opensTab = (ref: string): string => `(() => {
  const a = document.querySelector('[data-tether-ref=${JSON.stringify(ref)}]')?.closest('a[href]');
  return !!a && a.target !== '' && !['_self', '_parent', '_top'].includes(a.target.toLowerCase());
})()`;
const NO_PAGE = "no page is open in this task's browser: call browser_navigate first";
const LOST = 'the browser closed unexpectedly (crash?) and this page is lost; call browser_navigate again';

/** A Playwright error's first line without the API name or call log, for the model. */
function playwrightMessage(err: unknown): string {
  const first = (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';
  return first.replace(/^[\w.]+: (Error: )?/, '').trim();
}

async function settle(page: Page): Promise<void> {
  await page.waitForLoadState('domcontentloaded', { timeout: NAVIGATION_TIMEOUT_MS }).catch(() => undefined);
  await page.waitForLoadState('networkidle', { timeout: IDLE_WAIT_MS }).catch(() => undefined);
}

async function snapshotOf(session: TaskPage): Promise<string> {
  const { text, refsUsed } = await snapshotPage(session.page, session.refsUsed);
  session.refsUsed = refsUsed;
  return text;
}

/** What the proxy refused during the call, for the result (the page itself shows only the proxy's error). */
function blockedBy(net: CallNetwork): { blocked?: string } {
  return net.refusals.length > 0 ? { blocked: [...new Set(net.refusals)].join('; ') } : {};
}

/** The page's requests from now on belong to this call: its run decides them, and a person asked is shown it. */
function serveCall(session: TaskPage, ctx: ToolContext, tool: string, call: string): CallNetwork {
  const net = CallNetwork.of(ctx, tool);
  session.proxy.serve({ net, call, page: () => session.page.url() });
  return net;
}

/**
 * Runs `fn` on the task's existing page as the call `call` (`browser_click e12`); no page, a lost browser and
 * Playwright failures become error results.
 */
async function onPage(
  ctx: ToolContext,
  what: string,
  call: string,
  fn: (s: TaskPage) => Promise<Record<string, unknown> | string>,
): Promise<string> {
  browserPool.hold(ctx.taskId);
  try {
    let session: TaskPage | undefined;
    try {
      session = await browserPool.existing(ctx.taskId);
    } catch (err) {
      if (isTetherError(err, 'Browser.Gone')) return toolError(err.message);
      throw err;
    }
    if (!session) return toolError(NO_PAGE);
    const net = serveCall(session, ctx, call.split(' ')[0]!, call);
    try {
      const out = await fn(session);
      if (typeof out === 'string') return out;
      return JSON.stringify({ ...out, ...blockedBy(net) });
    } catch (err) {
      if (isBrowserGone(err)) {
        await browserPool.closeTask(ctx.taskId);
        return toolError(LOST);
      }
      const blocked = blockedBy(net).blocked;
      return toolError(`${what} failed: ${playwrightMessage(err)}${blocked ? ` (${blocked})` : ''}`);
    } finally {
      net.end();
    }
  } finally {
    browserPool.release(ctx.taskId);
  }
}

/**
 * page.goto whose time limit does not run while a person is asked about a host the navigation needs (a redirect's,
 * say): the navigation goes on once they decide, or fails with the proxy's refusal.
 */
async function gotoPatiently(page: Page, url: string, net: CallNetwork, signal: AbortSignal | undefined) {
  const clock = new NetworkClock(NAVIGATION_TIMEOUT_MS);
  const unwatch = net.watch((asking) => (asking > 0 ? clock.pause() : clock.resume()));
  const navigation = page.goto(url, { waitUntil: 'domcontentloaded', timeout: 0 });
  navigation.catch(() => undefined);
  const stops = [clock.signal, ...(signal ? [signal] : [])];
  let stop = (): void => undefined;
  try {
    return await new Promise<Awaited<typeof navigation>>((resolve, reject) => {
      stop = (): void =>
        reject(new Error(clock.signal.aborted ? `Timeout ${NAVIGATION_TIMEOUT_MS}ms exceeded` : 'cancelled'));
      for (const s of stops) s.addEventListener('abort', stop, { once: true });
      navigation.then(resolve, reject);
    });
  } finally {
    for (const s of stops) s.removeEventListener('abort', stop);
    unwatch();
    clock.stop();
  }
}

export async function navigate(url: string, ctx: ToolContext): Promise<string> {
  const target = toolUrl(url, 'opened');
  if ('error' in target) return toolError(target.error);
  const href = shownUrl(target.url.href);
  // Decided before the browser is asked to go there: a person may take longer than a page load may. As a host:
  // the proxy does not read the browser's HTTPS (context-proxy.ts).
  const net = CallNetwork.of(ctx, 'browser_navigate');
  const d = await net.decide(target.target, `browser_navigate ${href}`, undefined, true);
  if (!d.allow) return toolError(`refused to open ${href}: ${d.reason}`);
  browserPool.hold(ctx.taskId);
  try {
    return await openAndGo(target.url.href, ctx, net);
  } finally {
    net.end();
    browserPool.release(ctx.taskId);
  }
}

async function openAndGo(url: string, ctx: ToolContext, net: CallNetwork): Promise<string> {
  let restarted = false;
  for (let attempt = 0; ; attempt += 1) {
    let session: TaskPage | undefined;
    try {
      session = await browserPool.open(ctx.taskId);
      session.proxy.serve({ net, call: `browser_navigate ${shownUrl(url)}`, page: () => session!.page.url() });
      const response = await gotoPatiently(session.page, url, net, ctx.signal);
      await settle(session.page);
      const snapshot = await snapshotOf(session);
      return JSON.stringify({
        url: session.page.url(),
        title: await session.page.title(),
        ...(response && response.status() >= 400 ? { status: response.status() } : {}),
        ...(restarted
          ? { note: 'the browser had crashed and was restarted; earlier pages of this task are gone' }
          : {}),
        ...blockedBy(net),
        snapshot,
      });
    } catch (err) {
      // A crash is retried once on a fresh browser; a second one is reported.
      if (attempt === 0 && isBrowserGone(err)) {
        await browserPool.closeTask(ctx.taskId);
        restarted = true;
        continue;
      }
      const blocked = blockedBy(net).blocked;
      if (blocked) return toolError(blocked);
      return toolError(`navigation to ${shownUrl(url)} failed: ${playwrightMessage(err)}`);
    }
  }
}

export function snapshot(ctx: ToolContext): Promise<string> {
  return onPage(ctx, 'snapshot', 'browser_snapshot', async (s) => ({ snapshot: await snapshotOf(s) }));
}

export function click(ref: string, ctx: ToolContext): Promise<string> {
  return onPage(ctx, `click on ${ref}`, `browser_click ${ref}`, async (s) => {
    const target = await locateRef(s.page, ref);
    if (typeof target === 'string') return toolError(target);
    // A link into another tab opens it after the click returns; wait for it so the snapshot shows the new tab.
    const newTab = (await s.page.evaluate(opensTab(normalizeRef(ref) ?? ''))) === true;
    const tab = newTab
      ? s.context.waitForEvent('page', { timeout: NAVIGATION_TIMEOUT_MS }).catch(() => undefined)
      : undefined;
    await target.click({ timeout: ACTION_TIMEOUT_MS });
    const opened = await tab;
    if (opened) s.page = opened;
    await settle(s.page);
    return {
      action: `clicked ${ref}${opened ? ' (it opened a new tab, which is now the current page)' : ''}`,
      snapshot: await snapshotOf(s),
    };
  });
}

export function type(ref: string, text: string, submit: boolean, ctx: ToolContext): Promise<string> {
  return onPage(ctx, `typing into ${ref}`, `browser_type ${ref}`, async (s) => {
    const target = await locateRef(s.page, ref);
    if (typeof target === 'string') return toolError(target);
    await target.fill(text, { timeout: ACTION_TIMEOUT_MS });
    if (submit) {
      await target.press('Enter', { timeout: ACTION_TIMEOUT_MS });
      await settle(s.page);
    }
    return {
      action: `typed ${text.length} characters into ${ref}${submit ? ' and pressed Enter' : ''}`,
      snapshot: await snapshotOf(s),
    };
  });
}

export function scroll(direction: 'up' | 'down', amount: number | undefined, ctx: ToolContext): Promise<string> {
  return onPage(ctx, 'scroll', `browser_scroll ${direction}`, async (s) => {
    const before = (await s.page.evaluate('Math.round(window.scrollY)')) as number;
    const step = amount ?? Math.round((s.page.viewportSize()?.height ?? 720) * 0.8);
    await s.page.evaluate(`window.scrollBy(0, ${direction === 'down' ? step : -step})`);
    // Pages that load more on scroll get a moment to do it.
    await s.page.waitForLoadState('networkidle', { timeout: IDLE_WAIT_MS }).catch(() => undefined);
    const after = (await s.page.evaluate('Math.round(window.scrollY)')) as number;
    const note = after === before ? ` (already at the ${direction === 'down' ? 'bottom' : 'top'})` : '';
    return {
      action: `scrolled ${direction} from ${before} to ${after} px${note}`,
      scroll_y: after,
      snapshot: await snapshotOf(s),
    };
  });
}

export function back(ctx: ToolContext): Promise<string> {
  return onPage(ctx, 'going back', 'browser_back', async (s) => {
    const before = s.page.url();
    const response = await s.page.goBack({ waitUntil: 'domcontentloaded', timeout: NAVIGATION_TIMEOUT_MS });
    // Every tab starts on about:blank; going back to it is going nowhere the model asked for.
    if (s.page.url() === 'about:blank' && before !== 'about:blank') {
      await s.page.goForward({ waitUntil: 'domcontentloaded', timeout: NAVIGATION_TIMEOUT_MS });
      return toolError('there is no previous page in this tab');
    }
    if (response === null && s.page.url() === before) return toolError('there is no previous page in this tab');
    await settle(s.page);
    return { action: 'went back', url: s.page.url(), snapshot: await snapshotOf(s) };
  });
}

/** Width and height from a PNG's IHDR chunk. */
function pngSize(png: Buffer): { width: number; height: number } {
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

export function screenshot(fullPage: boolean, ctx: ToolContext): Promise<string> {
  return onPage(ctx, 'screenshot', 'browser_screenshot', async (s) => {
    const png = await s.page.screenshot({ fullPage, type: 'png', timeout: NAVIGATION_TIMEOUT_MS });
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    for (let n = 0; ; n += 1) {
      const name = `.tether-screenshots/${stamp}${n === 0 ? '' : `-${n}`}.png`;
      try {
        // Beneath the task's directory like every file tool's write: a .tether-screenshots link leads nowhere else.
        await writeTaskFile({ cwd: ctx.cwd }, name, png, { exclusive: true });
        return { path: join(ctx.cwd, name), ...pngSize(png), full_page: fullPage };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
    }
  });
}

export async function close(ctx: ToolContext): Promise<string> {
  const closed = await browserPool.closeTask(ctx.taskId);
  return JSON.stringify(closed ? { closed: true } : { closed: false, note: 'no page was open' });
}
