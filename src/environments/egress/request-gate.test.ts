// Unit tests of how a request's own text (URL, content type) is shown in an approval: it cannot close the quotes or
// parentheses it is shown in, nor hide characters. Pure.
import { describe, expect, it } from 'vitest';
import { shown } from './request-gate.js';

describe("a request's text in an approval", () => {
  it('quotes, backslashes, spaces, control and non-ASCII characters are percent-encoded', () => {
    expect(shown('https://r.example/a"b\\c d\u202ee', 100)).toBe('https://r.example/a%22b%5Cc%20d%E2%80%AEe');
    expect(shown('https://r.example/' + 'a'.repeat(50), 30)).toBe(`https://r.example/${'a'.repeat(12)}…`);
  });

  it('a content type cannot close the parentheses it is shown in', () => {
    expect(shown('text/plain, 1 bytes), first bytes: "hi"', 200, true)).toBe(
      'text/plain%2C%201%20bytes%29%2C%20first%20bytes:%20%22hi%22',
    );
    expect(shown('application/json;charset=utf-8', 200, true)).toBe('application/json;charset=utf-8');
  });
});
