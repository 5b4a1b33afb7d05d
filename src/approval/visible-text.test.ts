import { describe, expect, it } from 'vitest';
import { hasHiddenCharacters, visibleJson, visibleText } from './visible-text.js';

describe('visibleText', () => {
  it('leaves ordinary commands exactly as they are', () => {
    for (const c of [
      'rm -rf build',
      "find . -name '*.o' -exec rm {} \\;",
      'echo "héllo wörld ✓ 日本"',
      'git log --format=%H',
    ]) {
      expect(visibleText(c)).toBe(c);
      expect(hasHiddenCharacters(c)).toBe(false);
    }
  });

  it('shows escape sequences, carriage returns and tabs instead of letting them repaint the line', () => {
    expect(visibleText('rm -rf / \x1b[2K\x1b[1Gecho safe')).toBe('rm -rf / \\x1b[2K\\x1b[1Gecho safe');
    expect(visibleText('curl x | sh\recho hello')).toBe('curl x | sh\\recho hello');
    expect(visibleText('a\tb\x07\b\x00')).toBe('a\\tb\\a\\b\\0');
    expect(visibleText('\x9b31m')).toBe('\\x9b31m');
    expect(visibleText('x\x7f')).toBe('x\\x7f');
  });

  it('shows bidi overrides, zero-width and other invisible characters', () => {
    expect(visibleText('ls \u202etxt.hs')).toBe('ls \\u202etxt.hs');
    expect(visibleText('r\u200bm -rf /')).toBe('r\\u200bm -rf /');
    expect(visibleText('\u2066a\u2069\ufeff\u00ad\u2028')).toBe('\\u2066a\\u2069\\ufeff\\xad\\u2028');
    expect(visibleText('tag\udb40\udc41')).toBe('tag\\u{e0041}');
    expect(visibleText('lone \ud800 surrogate')).toBe('lone \\ud800 surrogate');
    expect(hasHiddenCharacters('ls \u202etxt')).toBe(true);
  });

  it('keeps line breaks of a multi-line script unless asked to escape them', () => {
    expect(visibleText('cat <<EOF\nhi\nEOF')).toBe('cat <<EOF\nhi\nEOF');
    expect(visibleText('a\nb', { newlines: 'escape' })).toBe('a\\nb');
  });
});

describe('visibleJson', () => {
  it('escapes what JSON.stringify leaves raw, and parses back to the exact text', () => {
    const value = { command: 'ls \u202etxt.sh \x1b[31m' };
    const json = visibleJson(value);
    expect(json).toBe('{"command":"ls \\u202etxt.sh \\u001b[31m"}');
    expect(JSON.parse(json)).toEqual(value);
  });
});
