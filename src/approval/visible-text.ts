// Makes text safe to show a person: terminal control characters, bidirectional overrides, invisible and space-like
// characters become visible escapes (\x1b, \r, \t, \u202e, \u00a0), letters of another script hiding in a Latin
// word are escaped too, so that what is read is what will run. Workflow-safe (pure).
import { asciiInDisguise, lookalikeRanges } from '../detector/engine/lookalikes.js';

/**
 * Characters that change how a terminal draws text, are not drawn at all, or look like a plain space: controls
 * (but the line feed), format characters (bidi, zero-width), default-ignorable code points (U+034F, U+17B4,
 * U+FFA0, U+3164, variation selectors, tags), every space but U+0020 (U+00A0, U+2003, U+3000), line and paragraph
 * separators, lone surrogates, private-use and unassigned code points, the braille blank (U+2800), and the two
 * brackets tether's own markers use (U+27E8, U+27E9), so a marker in the text cannot pass for one of tether's.
 */
const HIDDEN =
  /(?![\n ])[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}\p{Default_Ignorable_Code_Point}\u2800\u27e8\u27e9]/gu;

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

export interface VisibleOptions {
  /** Keep line feeds as line breaks (a multi-line script); otherwise they are shown as \n. Default: keep. */
  newlines?: 'keep' | 'escape';
  /**
   * `file`: the text is a file's content a person reads beside a command (what the gate read): tabs are shown as
   * tabs and a carriage return ending a line as that line's end, since neither can make it read otherwise.
   */
  whitespace?: 'escape' | 'file';
}

/** What a file's whitespace looks like after `whitespace: 'file'`: a tab, a line end. */
const FILE_WHITESPACE = /(\t|\r(?=\n))/g;

/** Escapes hidden characters, and the look-alike letters of mixed-script words. */
function escapeAll(text: string, esc: (ch: string) => string): string {
  const ranges = lookalikeRanges(text);
  if (ranges.length === 0) return text.replace(HIDDEN, esc);
  let out = '';
  let at = 0;
  for (const [start, end] of ranges) {
    out += text.slice(at, start).replace(HIDDEN, esc);
    // Inside such a word, only ASCII and Latin letters that are themselves are kept; the rest is escaped.
    for (const ch of text.slice(start, end))
      out += /[\p{Script=Latin}\p{N}._/-]/u.test(ch) && !asciiInDisguise(ch) ? ch : esc(ch);
    at = end;
  }
  return out + text.slice(at).replace(HIDDEN, esc);
}

/** The text with every control, bidi, invisible and space-like character replaced by a visible escape. */
export function visibleText(text: string, opts: VisibleOptions = {}): string {
  // In a file, each stretch between its ordinary whitespace is escaped on its own; a tab is kept, and a carriage
  // return ending a line is shown as that line's end.
  const parts = opts.whitespace === 'file' ? text.split(FILE_WHITESPACE) : [text];
  const out = parts.map((p, i) => (i % 2 === 0 ? escapeAll(p, escape) : p.replace('\r', ''))).join('');
  return opts.newlines === 'escape' ? out.replace(/\n/g, '\\n') : out;
}

/**
 * Whether the text holds a character that could make it read as something else: a control (but a tab), bidi,
 * invisible or space-like character, or a look-alike letter of another script. A tab is ordinary whitespace: it is
 * shown (as \t in a command) but is no reason to warn.
 */
export const hasDeceptiveCharacters = (text: string, opts: Pick<VisibleOptions, 'whitespace'> = {}): boolean =>
  hasHiddenCharacters(text.replace(opts.whitespace === 'file' ? FILE_WHITESPACE : /\t/g, ' '));

/** Whether the text holds characters a terminal would not show as they are (or look-alike letters of another script). */
export const hasHiddenCharacters = (text: string): boolean =>
  text.search(HIDDEN) >= 0 || lookalikeRanges(text).length > 0;

/** A `\uXXXX` JSON escape (two for a code point above U+FFFF), which a JSON parser reads back as the character. */
const jsonEscape = (ch: string): string =>
  [...Array(ch.length).keys()].map((i) => `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`).join('');

/**
 * JSON for a terminal or a chat message: the same value as JSON.stringify gives, with bidi, invisible and
 * look-alike characters written as \uXXXX escapes (JSON.stringify escapes only C0 controls), so a reader sees them
 * and a parser reads the exact text back.
 */
export const visibleJson = (value: unknown, space?: number): string =>
  escapeAll(JSON.stringify(value, null, space), jsonEscape);
