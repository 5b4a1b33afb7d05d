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

describe('invisible, space-like and look-alike characters', () => {
  it('escapes every family of invisible and space-like characters, not only the listed ones', () => {
    const cases: [string, string][] = [
      ['\u034f', '\\u034f'], // combining grapheme joiner
      ['\u17b4\u17b5', '\\u17b4\\u17b5'], // Khmer inherent vowels
      ['\uffa0\u3164\u115f', '\\uffa0\\u3164\\u115f'], // Hangul fillers
      ['\u2800', '\\u2800'], // braille blank
      ['\u00a0\u2003\u2009\u202f\u205f\u3000\u1680', '\\xa0\\u2003\\u2009\\u202f\\u205f\\u3000\\u1680'], // spaces
      ['\ufe0f\u{e0100}', '\\ufe0f\\u{e0100}'], // variation selectors
      ['\u{1d173}', '\\u{1d173}'], // musical format characters
      ['\ue000', '\\ue000'], // private use
      ['\u27e8x\u27e9', '\\u27e8x\\u27e9'], // tether's own marker brackets
    ];
    for (const [raw, shown] of cases) {
      expect(visibleText(`a${raw}b`)).toBe(`a${shown}b`);
      expect(hasHiddenCharacters(`a${raw}b`)).toBe(true);
    }
  });

  it('escapes look-alike letters of another script in a host or branch name, and leaves real words alone', () => {
    expect(visibleText('git push origin ma\u0456n')).toBe('git push origin ma\\u0456n');
    expect(visibleText('curl https://g\u0456thub.com/x')).toBe('curl https://g\\u0456thub.com/x');
    expect(visibleText('ssh \u0440\u0430\u0443\u0440\u0430l.com')).toBe('ssh \\u0440\\u0430\\u0443\\u0440\\u0430l.com');
    // Wholly in look-alikes: no Latin letter, yet it reads as "ораса".
    expect(hasHiddenCharacters('git checkout \u043e\u0440\u0430\u0441\u0430')).toBe(true);
    expect(visibleText('git commit -m "Привет, мир"')).toBe('git commit -m "Привет, мир"');
    expect(visibleText('echo Москва αβγ 日本語テスト')).toBe('echo Москва αβγ 日本語テスト');
    expect(hasHiddenCharacters('echo "héllo wörld"')).toBe(false);
    // Other forms of ASCII: fullwidth, mathematical, a combining mark on an ASCII letter.
    expect(visibleText('git push R \uff4d\uff41\uff49\uff4e')).toBe('git push R \\uff4d\\uff41\\uff49\\uff4e');
    expect(visibleText('git push R \u{1d5c6}ain')).toBe('git push R \\u{1d5c6}ain');
    expect(visibleText('git push R mai\u0307n')).toBe('git push R mai\\u0307n');
    expect(visibleText('git push R ma\u00efn')).toBe('git push R ma\u00efn'); // a composed ï is itself
  });

  it('visibleJson escapes them too, and parses back to the exact text', () => {
    const value = { command: 'x\u{e0041}\u00a0ma\u0456n' };
    const json = visibleJson(value);
    expect(json).not.toMatch(/[\u{e0041}\u00a0\u0456]/u);
    expect(JSON.parse(json)).toEqual(value);
  });
});
