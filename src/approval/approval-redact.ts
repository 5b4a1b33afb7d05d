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

/** The secret spans of `text`, in order and not overlapping. */
export function secretSpans(text: string): SecretSpan[] {
  const found: SecretSpan[] = [];
  for (const m of text.matchAll(ASSIGNMENT)) {
    const start = m.index + m[1]!.length + m[2]!.length;
    found.push({ start, end: start + m[3]!.length, name: m[1]! });
  }
  for (const pattern of KEY_PATTERNS)
    for (const m of text.matchAll(pattern)) found.push({ start: m.index, end: m.index + m[0].length, name: 'key' });
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  const out: SecretSpan[] = [];
  for (const s of found) {
    const last = out.at(-1);
    if (last && s.start < last.end) last.end = Math.max(last.end, s.end);
    else out.push({ ...s });
  }
  return out;
}
