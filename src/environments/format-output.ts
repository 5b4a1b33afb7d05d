// Turns raw command output into what the model reads: terminal codes stripped, binary noted, secrets hidden, and
// long output cut to a head and a longer tail with a notice. Worker-only.
import { cleanOutput } from './output-buffer.js';
import { redactSecrets } from '../common/redact.js';

/** Of the characters kept from long output, this share comes from the start; the rest (the end) matters more. */
const HEAD_SHARE = 0.4;

interface FormatOptions {
  maxChars: number;
  secrets: { name: string; value: string }[];
}

/** Keeps 40% head and 60% tail of text longer than `maxChars`, with a notice of what was cut in between. */
export function capHeadTail(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const head = Math.floor(maxChars * HEAD_SHARE);
  const tail = maxChars - head;
  const cut = text.length - head - tail;
  return `${text.slice(0, head)}\n\n[... output truncated: ${cut} of ${text.length} characters cut; the first ${head} and last ${tail} are shown ...]\n\n${text.slice(text.length - tail)}`;
}

export function formatOutput(raw: string, opts: FormatOptions): string {
  // A PTY ends lines with CR LF, and programs redraw a line with a lone CR: keep what the line finally showed.
  const lines = cleanOutput(raw.replace(/\r\n/g, '\n'))
    .split('\n')
    .map((line) =>
      line.includes('\r') ? line.slice(line.lastIndexOf('\r', line.length - 2) + 1).replace(/\r$/, '') : line,
    );
  return capHeadTail(redactSecrets(lines.join('\n'), opts.secrets), opts.maxChars);
}
