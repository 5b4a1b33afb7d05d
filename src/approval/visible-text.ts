// Makes text safe to show a person: terminal control characters, bidirectional overrides and invisible characters
// become visible escapes (\x1b, \r, \t, \u202e), so that what is read is what will run. Workflow-safe (pure).

/** Characters that change how a terminal draws text, or are not drawn at all. */
const HIDDEN =
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u00ad\u061c\u115f\u1160\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\ufff9-\ufffb]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]|\udb40[\udc00-\udc7f]/g;

const NAMED: Record<string, string> = {
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
  '\v': '\\v',
  '\0': '\\0',
  '\x1b': '\\x1b',
  '\x07': '\\a',
};

function escape(ch: string): string {
  const named = NAMED[ch];
  if (named) return named;
  const code = ch.codePointAt(0)!;
  if (code < 0x100) return `\\x${code.toString(16).padStart(2, '0')}`;
  if (code > 0xffff) return `\\u{${code.toString(16)}}`;
  return `\\u${code.toString(16).padStart(4, '0')}`;
}

interface VisibleOptions {
  /** Keep line feeds as line breaks (a multi-line script); otherwise they are shown as \n. Default: keep. */
  newlines?: 'keep' | 'escape';
}

/** The text with every control, bidi and invisible character replaced by a visible escape. */
export function visibleText(text: string, opts: VisibleOptions = {}): string {
  const out = text.replace(HIDDEN, escape);
  return opts.newlines === 'escape' ? out.replace(/\n/g, '\\n') : out;
}

/** Whether the text holds characters a terminal would not show as they are. */
export function hasHiddenCharacters(text: string): boolean {
  HIDDEN.lastIndex = 0;
  const found = HIDDEN.test(text);
  HIDDEN.lastIndex = 0;
  return found;
}

/**
 * JSON for a terminal or a chat message: the same value as JSON.stringify gives, with bidi and invisible characters
 * written as \uXXXX escapes (JSON.stringify escapes only C0 controls), so a reader sees them and a parser reads the
 * exact text back.
 */
export function visibleJson(value: unknown, space?: number): string {
  return JSON.stringify(value, null, space).replace(HIDDEN, (ch) => {
    const code = ch.codePointAt(0)!;
    return code > 0xffff ? ch : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
