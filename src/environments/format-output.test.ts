import { describe, expect, it } from 'vitest';
import { capHeadTail, formatOutput } from './format-output.js';
import { redactSecrets, secretValues } from '../common/redact.js';

describe('secret redaction', () => {
  const secrets = secretValues({
    OPENAI_API_KEY: 'sk-abcdefghijklmnopqrstuvwx',
    GH_TOKEN: 'tok-123456',
    DB_PASSWORD: 'hunter22',
    SHORT_TOKEN: 'abc',
    HOME: '/root',
  });
  it.each([
    ['key sk-abcdefghijklmnopqrstuvwx end', 'key [REDACTED OPENAI_API_KEY] end'],
    ['tok-123456 and hunter22', '[REDACTED GH_TOKEN] and [REDACTED DB_PASSWORD]'],
    ['abc stays: too short to be a secret', 'abc stays: too short to be a secret'],
    ['/root is not a secret', '/root is not a secret'],
    ['unknown ghp_0123456789abcdefghijABCDEFGHIJ0123 key', 'unknown [REDACTED key] key'],
    ['aws AKIAABCDEFGHIJKLMNOP id', 'aws [REDACTED key] id'],
  ])('%s', (input, expected) => {
    expect(redactSecrets(input, secrets)).toBe(expected);
  });
});

describe('formatOutput', () => {
  it('keeps 40% head and 60% tail of long output, with a notice', () => {
    const text = 'h'.repeat(5_000) + 't'.repeat(5_000);
    const out = capHeadTail(text, 1_000);
    expect(out.startsWith('h'.repeat(400) + '\n')).toBe(true);
    expect(out.endsWith('\n' + 't'.repeat(600))).toBe(true);
    expect(out).toMatch(/output truncated: 9000 of 10000 characters cut/);
    expect(capHeadTail('short', 1_000)).toBe('short');
  });

  it('turns PTY line ends and carriage-return redraws into the lines a person saw', () => {
    expect(
      formatOutput('a\r\nprogress 10%\rprogress 100%\r\n\u001b[31mred\u001b[0m\r\n', { maxChars: 1_000, secrets: [] }),
    ).toBe('a\nprogress 100%\nred\n');
  });
});
