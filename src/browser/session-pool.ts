// One Chromium per worker process and one BrowserContext + Page per task, closed when idle, at run end or on close. Worker-only.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { currentConfig } from '../config/current.js';
import { registerTaskCleanup } from '../registry/task-cleanup.js';
import { requireBrowser } from './find-browser.js';
import { ContextProxy } from './context-proxy.js';
import { playwright } from './playwright-module.js';
import { isTetherError, TetherError } from '../common/errors.js';

/** Flags for a headless Chromium on a worker: nothing phones home, nothing waits for a GPU or a big /dev/shm. */
export const LAUNCH_ARGS: readonly string[] = [
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  // Every request goes through the task's proxy, which resolves names only once their host is allowed: Chromium's
  // own resolver answers nothing (a DNS prefetch or a connection around the proxy would carry the name out) but the
  // proxies' own address (the rules apply to an address as well).
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
  // WebRTC's UDP (STUN, TURN, peer connections) would go around an HTTP proxy; only proxied TCP is left to it.
  '--webrtc-ip-handling-policy=disable_non_proxied_udp',
];

const VIEWPORT = { width: 1280, height: 720 };

/** A task's browsing state; `page` follows the newest tab (a link with target=_blank moves it there). */
export interface TaskPage {
  readonly taskId: string;
  readonly context: BrowserContext;
  page: Page;
  /** Refs handed out so far, so a new snapshot never reuses one. */
  refsUsed: number;
  crashed: boolean;
  /** The task's own proxy: every request of its context goes through it, as a request of the current call. */
  readonly proxy: ContextProxy;
}

/** The browser or the task's page went away under a call (crash, kill); the message is for the model. */
/** Errors Playwright raises when the page, context or browser died under a call. */
export function isBrowserGone(err: unknown): boolean {
  if (isTetherError(err, 'Browser.Gone')) return true;
  return err instanceof Error && /has been closed|crash|browser has disconnected|Connection closed/i.test(err.message);
}

class BrowserPool {
  private launching?: Promise<Browser>;
  /**
   * The browser-wide proxy, for anything not in a task's context (there should be nothing): it refuses everything.
   * Each task's context has a proxy of its own (create), so that each request is known to be that task's.
   */
  private closedProxy?: Promise<ContextProxy>;
  private readonly tasks = new Map<string, Promise<TaskPage>>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  /** Calls running per task; the idle clock only runs while there are none. */
  private readonly active = new Map<string, number>();

  hasTask(taskId: string): boolean {
    return this.tasks.has(taskId);
  }

  /** The task's page, or undefined when it has none; a crashed one is closed and reported as Browser.Gone. */
  async existing(taskId: string): Promise<TaskPage | undefined> {
    const pending = this.tasks.get(taskId);
    if (!pending) return undefined;
    const session = await pending.catch(() => undefined);
    if (!session) return undefined;
    if (!this.alive(session)) {
      await this.closeTask(taskId);
      throw new TetherError(
        'Browser.Gone',
        "the task's browser page crashed or was closed, and is gone: call browser_navigate again",
      );
    }
    return session;
  }

  /** The task's page, created (and the browser launched) when it has none or its old one died. */
  async open(taskId: string): Promise<TaskPage> {
    const pending = this.tasks.get(taskId);
    if (pending) {
      const session = await pending.catch(() => undefined);
      if (session && this.alive(session)) return session;
      await this.closeTask(taskId);
    }
    const created = this.create(taskId);
    this.tasks.set(taskId, created);
    void created.catch(() => {
      if (this.tasks.get(taskId) === created) this.tasks.delete(taskId);
    });
    return created;
  }

  /** A call on the task's page begins: its idle clock stops until the last running call ends. */
  hold(taskId: string): void {
    clearTimeout(this.timers.get(taskId));
    this.timers.delete(taskId);
    this.active.set(taskId, (this.active.get(taskId) ?? 0) + 1);
  }

  /** A call ends: with none left running, the page is closed after browser.idle_seconds unless used again. */
  release(taskId: string): void {
    const left = (this.active.get(taskId) ?? 1) - 1;
    if (left > 0) {
      this.active.set(taskId, left);
      return;
    }
    this.active.delete(taskId);
    clearTimeout(this.timers.get(taskId));
    if (!this.tasks.has(taskId)) return;
    const timer = setTimeout(() => void this.closeTask(taskId), currentConfig().browser.idle_seconds * 1000);
    timer.unref();
    this.timers.set(taskId, timer);
  }

  /** Closes the task's context; the browser process goes too when no task uses it. True when there was one. */
  async closeTask(taskId: string): Promise<boolean> {
    clearTimeout(this.timers.get(taskId));
    this.timers.delete(taskId);
    const pending = this.tasks.get(taskId);
    if (!pending) return false;
    this.tasks.delete(taskId);
    const session = await pending.catch(() => undefined);
    await session?.context.close().catch(() => undefined);
    await session?.proxy.close();
    if (this.tasks.size === 0) await this.closeBrowser();
    return session !== undefined;
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.tasks.keys()].map((id) => this.closeTask(id)));
    await this.closeBrowser();
  }

  private alive(session: TaskPage): boolean {
    return !session.crashed && !session.page.isClosed() && session.context.browser()?.isConnected() === true;
  }

  private async closeBrowser(): Promise<void> {
    const launching = this.launching;
    this.launching = undefined;
    const browser = await launching?.catch(() => undefined);
    await browser?.close().catch(() => undefined);
  }

  private async browser(): Promise<Browser> {
    // Concurrent tasks share one launch; a dead or failed browser is replaced once by whoever notices first.
    for (let i = 0; i < 3 && this.launching; i += 1) {
      const pending = this.launching;
      const current = await pending.catch(() => undefined);
      if (current?.isConnected()) return current;
      if (this.launching === pending) this.launching = undefined;
    }
    const launching = this.launch();
    this.launching = launching;
    try {
      return await launching;
    } catch (err) {
      if (this.launching === launching) this.launching = undefined;
      throw err;
    }
  }

  private async launch(): Promise<Browser> {
    const settings = currentConfig().browser;
    const { chromium } = await playwright();
    // Loopback goes through the proxy too (Chromium bypasses proxies for it otherwise).
    this.closedProxy ??= ContextProxy.start();
    const proxy = await this.closedProxy;
    // A dead browser needs no handler: alive() sees its pages' browser disconnected and the next call says so.
    return chromium.launch({
      executablePath: requireBrowser(),
      headless: settings.headless,
      // Chromium's sandbox cannot start as root; Playwright then passes --no-sandbox.
      chromiumSandbox: process.getuid?.() !== 0,
      args: [...LAUNCH_ARGS, `--proxy-server=${proxy.url}`, '--proxy-bypass-list=<-loopback>'],
      timeout: 60_000,
      // The worker shuts down on its own signals; Playwright still kills the browser when the process exits.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
  }

  private async create(taskId: string): Promise<TaskPage> {
    const browser = await this.browser();
    const proxy = await ContextProxy.start();
    let context: BrowserContext;
    try {
      // Playwright adds <-loopback> itself unless an environment variable says not to; said here, it always holds.
      context = await browser.newContext({
        viewport: VIEWPORT,
        acceptDownloads: false,
        proxy: { server: proxy.url, bypass: '<-loopback>' },
      });
    } catch (err) {
      await proxy.close();
      throw err;
    }
    let page: Page;
    try {
      page = await context.newPage();
    } catch (err) {
      await context.close().catch(() => undefined);
      await proxy.close();
      throw err;
    }
    const session: TaskPage = { taskId, context, page, refsUsed: 0, crashed: false, proxy };
    const follow = (page: Page): void => {
      page.on('crash', () => {
        if (session.page === page) session.crashed = true;
      });
    };
    follow(session.page);
    context.on('page', (page) => {
      session.page = page;
      follow(page);
    });
    return session;
  }
}

export const browserPool = new BrowserPool();
// A run that ends closes its task's page on the worker holding it (the idle limit catches the rest).
registerTaskCleanup('browser', (taskId) => browserPool.closeTask(taskId));

/** Closes every context and the browser process (worker shutdown, tests). */
export async function closeAllBrowsers(): Promise<void> {
  await browserPool.closeAll();
}
