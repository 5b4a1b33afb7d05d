// Finds the Chromium the browser tools drive, and the one availability check all browser_* tools share. Worker-only.
import { accessSync, constants, statSync } from 'node:fs';
import { currentConfig } from '../config/current.js';

/** Tried in order when browser.executable_path is not set. */
const DEFAULT_BROWSER_PATHS: readonly string[] = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
];

const NOT_FOUND = "no Chromium found: install Debian's chromium or set browser.executable_path";

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The browser to launch, or undefined; a configured path is the only one tried (a typo must not silently fall back). */
export function findBrowser(
  configured: string | undefined,
  candidates: readonly string[] = DEFAULT_BROWSER_PATHS,
): string | undefined {
  if (configured !== undefined) return isExecutableFile(configured) ? configured : undefined;
  return candidates.find(isExecutableFile);
}

/** The browser to launch under the current configuration; throws with the reason `tether tools` shows. */
export function requireBrowser(): string {
  const configured = currentConfig().browser.executable_path;
  const found = findBrowser(configured);
  if (found) return found;
  throw new Error(
    configured === undefined
      ? NOT_FOUND
      : `${NOT_FOUND} (browser.executable_path ${configured} is not an executable file)`,
  );
}

/** The shared checkFn of every browser tool: one function, so the registry runs it once per listing. */
export function browserAvailable(): boolean {
  requireBrowser();
  return true;
}
