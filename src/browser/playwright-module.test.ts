// Playwright is loaded once per process, and only where a browser could be launched.
import { expect, it } from 'vitest';
import { playwright, preloadPlaywright } from './playwright-module.js';

it('preloads nothing where no browser could be launched', async () => {
  expect(await preloadPlaywright('/nonexistent/chromium')).toBe(false);
});

it('loads Playwright once and hands every caller the same module', async () => {
  const [a, b] = await Promise.all([playwright(), playwright()]);
  expect(a).toBe(b);
  expect(typeof a.chromium.launch).toBe('function');
});
