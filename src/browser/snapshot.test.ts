// Unit tests of the snapshot formatter and ref parsing (the in-page walk runs in test/browser-tools.test.ts). Worker-only.
import { describe, expect, test } from 'vitest';
import { formatSnapshot, normalizeRef } from './snapshot.js';
import type { PageWalk } from './snapshot-script.js';

const walk = (lines: PageWalk['lines'], extra: Partial<PageWalk> = {}): PageWalk => ({
  title: 'T',
  url: 'http://x/',
  scrollY: 0,
  scrollHeight: 500,
  viewportHeight: 720,
  lines,
  truncated: false,
  next: 0,
  ...extra,
});

describe('formatSnapshot', () => {
  test('header, then lines indented by depth', () => {
    const text = formatSnapshot(
      walk([
        { depth: 0, text: '# Hi' },
        { depth: 0, text: 'form' },
        { depth: 1, text: 'button "Go" [e1]' },
      ]),
    );
    expect(text).toBe('Title: T\nURL: http://x/\n# Hi\nform\n  button "Go" [e1]');
  });

  test('a page taller than the viewport shows where it is scrolled to', () => {
    expect(formatSnapshot(walk([], { scrollY: 300, scrollHeight: 2720 }))).toContain(
      'Scroll: 300 of 2000 px (viewport 720 px high)',
    );
  });

  test('an empty page says so', () => {
    expect(formatSnapshot(walk([]))).toContain('(no visible content)');
  });

  test('over the limit it is cut at a line boundary, within the limit, with a notice', () => {
    const lines = Array.from({ length: 500 }, (_, i) => ({ depth: 0, text: `line ${i} ${'x'.repeat(40)}` }));
    const text = formatSnapshot(walk(lines), 2_000);
    expect(text.length).toBeLessThanOrEqual(2_000);
    expect(text).toMatch(/\[snapshot cut at 2000 characters: \d+ more lines not shown/);
    expect(
      text
        .split('\n')
        .filter((l) => l.startsWith('line '))
        .every((l) => l.endsWith('x'.repeat(40))),
    ).toBe(true);
  });

  test('a walk that stopped early says there is more', () => {
    expect(formatSnapshot(walk([{ depth: 0, text: 'a' }], { truncated: true }))).toContain('at least 1 more lines');
  });
});

describe('normalizeRef', () => {
  test.each([
    ['e12', 'e12'],
    ['[e3]', 'e3'],
    ['@e7', 'e7'],
    [' e1 ', 'e1'],
    ['12', undefined],
    ['e', undefined],
    ['button', undefined],
    ['e1"]', undefined],
  ])('%j → %j', (raw, ref) => {
    expect(normalizeRef(raw)).toBe(ref);
  });
});
