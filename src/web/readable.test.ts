import { describe, expect, it } from 'vitest';
import { parseContentType } from './fetch-page.js';
import { boundText, htmlToText } from './readable.js';

describe('htmlToText', () => {
  it('keeps paragraphs, headings and list items on their own lines', async () => {
    const { text } = await htmlToText(
      '<html><body><div><h2>Facts</h2><p>First  paragraph\n of text.</p><ul><li>one</li><li>two</li></ul></div></body></html>',
    );
    expect(text).toContain('First paragraph of text.');
    expect(text).toMatch(/- one\n- two/);
  });

  it('falls back to the body text, without scripts, when there is no article', async () => {
    const out = await htmlToText(
      '<html><head><title> Tiny </title><script>var x = "SCRIPT"</script></head><body><span>just a line</span><style>.a{}</style></body></html>',
    );
    expect(out).toEqual({ title: 'Tiny', text: 'just a line' });
  });

  it('returns empty text for an empty page', async () => {
    expect((await htmlToText('<html><body></body></html>')).text).toBe('');
  });
});

describe('boundText', () => {
  it('keeps short text and cuts long text to the limit with a notice', () => {
    expect(boundText('abc', 10)).toEqual({ text: 'abc', cut: false });
    const { text, cut } = boundText('y'.repeat(5_000), 1_000);
    expect(cut).toBe(true);
    expect(text.length).toBeLessThanOrEqual(1_000);
    expect(text).toMatch(/^y+\n\n\[\.\.\. cut: the first 1000 of 5000 characters are shown\]$/);
  });
});

describe('parseContentType', () => {
  it('splits the media type from its charset', () => {
    expect(parseContentType('Text/HTML; Charset="ISO-8859-1"')).toEqual({ type: 'text/html', charset: 'ISO-8859-1' });
    expect(parseContentType('application/json')).toEqual({ type: 'application/json' });
    expect(parseContentType(undefined)).toEqual({ type: '' });
  });
});
