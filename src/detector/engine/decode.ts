// Sees through the text a pipeline decodes before a shell or interpreter runs it (`echo ... | base64 -d | sh`,
// `rev`, `xxd -r -p`), so that a hidden hardline command is still recognised. Pure (no Buffer: workflow-safe).
import { parseFlags, type Argv } from './argv.js';
import type { Upstream } from '../checks/types.js';

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Bytes as text: UTF-8 where valid, Latin-1 otherwise (a command hidden in base64 is plain ASCII anyway). */
function bytesToText(bytes: number[]): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array(bytes));
  } catch {
    return String.fromCharCode(...bytes);
  }
}

export function decodeBase64(text: string): string | undefined {
  const clean = text.replace(/\s+/g, '').replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '');
  if (!/^[A-Za-z0-9+/]*$/.test(clean)) return undefined;
  const bytes: number[] = [];
  let bits = 0;
  let acc = 0;
  for (const c of clean) {
    acc = (acc << 6) | B64.indexOf(c);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((acc >> bits) & 0xff);
    }
  }
  return bytesToText(bytes);
}

function decodeHex(text: string): string | undefined {
  const clean = text.replace(/\s+/g, '');
  if (!/^([0-9a-fA-F]{2})*$/.test(clean)) return undefined;
  const bytes: number[] = [];
  for (let i = 0; i < clean.length; i += 2) bytes.push(parseInt(clean.slice(i, i + 2), 16));
  return bytesToText(bytes);
}

const rot13 = (text: string): string =>
  text.replace(/[a-zA-Z]/g, (c) =>
    String.fromCharCode(((c.charCodeAt(0) - (c <= 'Z' ? 65 : 97) + 13) % 26) + (c <= 'Z' ? 65 : 97)),
  );

/** What one pipeline element makes of its input, when it is a decoder this module knows; undefined otherwise. */
function applyDecoder(argv: Argv, input: string): string | undefined {
  const f = parseFlags(argv.args);
  switch (argv.name) {
    case 'base64':
      return f.short.has('d') || f.short.has('D') || f.long.has('--decode') ? decodeBase64(input) : undefined;
    case 'rev':
      return input
        .split('\n')
        .map((l) => [...l].reverse().join(''))
        .join('\n');
    case 'xxd':
      return (f.short.has('r') || f.long.has('--revert')) && f.short.has('p') ? decodeHex(input) : undefined;
    case 'tr': {
      const [from, to] = f.operands.map((w) => w.text);
      return from === 'A-Za-z' && to === 'N-ZA-Mn-za-m' ? rot13(input) : undefined;
    }
  }
}

const PASS_THROUGH = new Set(['cat', 'tee', 'stdbuf', 'pv']);

/**
 * The text that reaches the last command of a pipeline when an earlier element prints known text and every
 * element after it passes it on or decodes it; undefined when any step is unknown.
 */
export function decodedText(upstream: readonly Upstream[]): string | undefined {
  const at = upstream.findLastIndex((u) => u.text !== undefined);
  if (at < 0) return undefined;
  let text: string | undefined = upstream[at]!.text!;
  for (const u of upstream.slice(at + 1)) {
    if (text === undefined || !u.argv?.name) return undefined;
    if (PASS_THROUGH.has(u.argv.name) && !(u.argv.name === 'cat' && u.argv.args.some((a) => !a.text.startsWith('-'))))
      continue;
    text = applyDecoder(u.argv, text);
  }
  return text;
}
