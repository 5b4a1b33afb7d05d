// Where a secret sits in text a person is asked to approve: the value of `SECRET_NAME=value` and well-known key
// formats, limited to the characters a secret token is made of, so that redaction stops at a shell metacharacter
// and never hides code (`TOKEN=abcdef;date>>f` hides `abcdef` only). Workflow-safe (pure).
import { KEY_PATTERNS, SECRET_ASSIGNMENT_NAME } from '../common/redact.js';

/** A hidden span of the text: [start, end) in UTF-16 indices, and what it is. */
export interface SecretSpan {
  start: number;
  end: number;
  name: string;
}

/**
 * The characters a secret token is made of (letters, digits, `_ - + / = . %`): never `;`, `|`, `&`, `>`, `<`, `$`,
 * a backquote, a parenthesis, a quote, a backslash or white space.
 */
const TOKEN = '[A-Za-z0-9_+/=.%-]';
const ASSIGNMENT = new RegExp(
  `\\b(${SECRET_ASSIGNMENT_NAME})((?:\\\\?["'])?[ \\t]*[=:][ \\t]*(?:\\\\?["'])?)(${TOKEN}{6,})`,
  'g',
);

/** The shortest value hidden wherever it appears: shorter strings are too common to be told from ordinary text. */
const MIN_SECRET = 6;

/**
 * The secret values in `text` (what its `NAME=value` assignments and key-shaped tokens hold): a text derived from it
 * (a finding that expands `$API_TOKEN`, a title, a log line) hides these wherever they appear, as the text does.
 */
export const secretValues = (text: string): string[] =>
  [...new Set(spansIn(text).map((s) => text.slice(s.start, s.end)))].filter((v) => v.length >= MIN_SECRET);

/**
 * The secret spans of `text`, in order and not overlapping: its own, and every occurrence of `secrets` (the values of
 * the command it was derived from), so that a value hidden in a command is hidden in every text made from it. (A
 * command itself is given no `secrets`: its other occurrences of a value may be code, which is never hidden.)
 */
export function secretSpans(text: string, secrets: readonly string[] = []): SecretSpan[] {
  const found = spansIn(text);
  for (const value of new Set(secrets)) {
    if (value.length < MIN_SECRET) continue;
    for (let at = text.indexOf(value); at >= 0; at = text.indexOf(value, at + value.length))
      found.push({ start: at, end: at + value.length, name: 'value' });
  }
  return merged(found);
}

function spansIn(text: string): SecretSpan[] {
  const found: SecretSpan[] = [];
  for (const m of text.matchAll(ASSIGNMENT)) {
    const start = m.index + m[1]!.length + m[2]!.length;
    found.push({ start, end: start + m[3]!.length, name: m[1]! });
  }
  for (const pattern of KEY_PATTERNS)
    for (const m of text.matchAll(pattern)) found.push({ start: m.index, end: m.index + m[0].length, name: 'key' });
  return merged(found);
}

/** Spans in order, overlapping ones joined. */
function merged(found: SecretSpan[]): SecretSpan[] {
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  const out: SecretSpan[] = [];
  for (const s of found) {
    const last = out.at(-1);
    if (last && s.start < last.end) last.end = Math.max(last.end, s.end);
    else out.push({ ...s });
  }
  return out;
}
