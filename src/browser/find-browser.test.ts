// Unit tests of finding the browser binary: a configured path only, else the first executable candidate. Worker-only.
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { findBrowser } from './find-browser.js';

const dir = mkdtempSync(join(tmpdir(), 'tether-find-browser-'));
const runnable = join(dir, 'chromium');
const plain = join(dir, 'not-executable');
writeFileSync(runnable, '#!/bin/sh\n');
chmodSync(runnable, 0o755);
writeFileSync(plain, '');
chmodSync(plain, 0o644);

describe('findBrowser', () => {
  test('the first executable candidate wins; missing and non-executable files and folders are passed over', () => {
    expect(findBrowser(undefined, [join(dir, 'missing'), plain, dir, runnable])).toBe(runnable);
    expect(findBrowser(undefined, [join(dir, 'missing')])).toBeUndefined();
  });

  test('a configured path is the only one tried', () => {
    expect(findBrowser(runnable, [])).toBe(runnable);
    expect(findBrowser(join(dir, 'typo'), [runnable])).toBeUndefined();
  });
});
