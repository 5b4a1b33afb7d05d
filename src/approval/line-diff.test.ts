// The unified diff a person approving a protected file's change is shown.
import { describe, expect, it } from 'vitest';
import { unifiedDiff } from './line-diff.js';

const L = { from: 'a (now)', to: 'a (after)' };

describe('unified diff', () => {
  it('shows an append, a new file, a change in the middle with three lines of context, and nothing for no change', () => {
    expect(unifiedDiff('a\nb\nc\n', 'a\nb\nc\nd\n', L)).toBe(
      '--- a (now)\n+++ a (after)\n@@ -1,3 +1,4 @@\n a\n b\n c\n+d',
    );
    expect(unifiedDiff('', 'x\ny\n', L)).toBe('--- a (now)\n+++ a (after)\n@@ -0,0 +1,2 @@\n+x\n+y');
    const before = Array.from({ length: 20 }, (_, i) => `l${i + 1}`).join('\n') + '\n';
    const after = before.replace('l10\n', 'L10\n');
    expect(unifiedDiff(before, after, L)).toBe(
      '--- a (now)\n+++ a (after)\n@@ -7,7 +7,7 @@\n l7\n l8\n l9\n-l10\n+L10\n l11\n l12\n l13',
    );
    expect(unifiedDiff('same\n', 'same\n', L)).toBe('');
  });

  it('keeps changes far apart in hunks of their own, and near ones in one', () => {
    const before = Array.from({ length: 30 }, (_, i) => `l${i + 1}`).join('\n') + '\n';
    const far = before.replace('l3\n', 'X\n').replace('l25\n', 'Y\n');
    expect(unifiedDiff(before, far, L).match(/^@@/gm)).toHaveLength(2);
    const near = before.replace('l3\n', 'X\n').replace('l8\n', 'Y\n');
    expect(unifiedDiff(before, near, L).match(/^@@/gm)).toHaveLength(1);
  });

  it('says when only the final newline changes', () => {
    expect(unifiedDiff('a\nb', 'a\nb\n', L)).toMatch(/a newline is added at the end/);
    expect(unifiedDiff('a\nb\n', 'a\nb', L)).toMatch(/no newline at the end/);
  });

  it('finds the smallest edit (a moved line is one removal and one addition)', () => {
    const d = unifiedDiff('a\nb\nc\nd\n', 'b\nc\nd\na\n', L);
    expect(d.split('\n').filter((l) => /^[-+][^-+]/.test(l))).toEqual(['-a', '+a']);
  });

  it('stays quick on two large unrelated texts (past its bound, the middle is shown replaced whole)', () => {
    const a = Array.from({ length: 20_000 }, (_, i) => `a${i}`).join('\n');
    const b = Array.from({ length: 20_000 }, (_, i) => `b${i}`).join('\n');
    const d = unifiedDiff(a, b, L);
    expect(d.split('\n').filter((l) => l.startsWith('-a'))).toHaveLength(20_000);
    expect(d.split('\n').filter((l) => l.startsWith('+b'))).toHaveLength(20_000);
  });
});
