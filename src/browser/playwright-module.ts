// Playwright, loaded once per worker process. Worker-only.
//
// Loading it runs about half a second of synchronous module code (seconds on a busy machine), and nothing heartbeats
// while it runs: inside a browser call's activity that stall counted against the call's 2 s heartbeat timeout, and
// a loaded machine lost the call (seen in CI). A worker that can launch a browser therefore loads it while it starts,
// alongside its connection, before it takes any call.
import { findBrowser } from './find-browser.js';

type Playwright = typeof import('playwright-core');

let loading: Promise<Playwright> | undefined;

/** Playwright's module, loaded on first use (at worker start where a browser is found). */
export function playwright(): Promise<Playwright> {
  loading ??= import('playwright-core').catch((err: unknown) => {
    loading = undefined; // a failed load is tried again by the next call, which reports it
    throw err;
  });
  return loading;
}

/**
 * Starts loading Playwright when this worker could launch a browser (`executablePath`, as in `browser.executable_path`);
 * the promise settles when it is loaded, and never rejects: a browser call reports a failed load itself.
 */
export async function preloadPlaywright(executablePath: string | undefined): Promise<boolean> {
  if (findBrowser(executablePath) === undefined) return false;
  return playwright().then(
    () => true,
    () => false,
  );
}
