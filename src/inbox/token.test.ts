// inboxToken: made once and kept (mode 0600), replaced on rotation or when the file holds something weak.
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inboxToken } from './token.js';

describe('inboxToken', () => {
  it('keeps the token until rotated, and replaces a short one', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'tether-token-')), 'gateway', 'inbox-token');
    const first = inboxToken(false, file);
    expect(first).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(inboxToken(false, file)).toBe(first);
    const rotated = inboxToken(true, file);
    expect(rotated).not.toBe(first);
    expect(readFileSync(file, 'utf8').trim()).toBe(rotated);
    writeFileSync(file, 'abc\n');
    expect(inboxToken(false, file)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
