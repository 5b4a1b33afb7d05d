// The forms a leaked secret can take in text (as is, reversed, upper and lower case, base64 at each alignment, hex,
// base32, 8-character pieces) and a scanner that finds any of them in a text in one pass. Used by the containment
// tests and by eval:contained's oracles. Pure (no I/O).
import { randomBytes } from 'node:crypto';

/** Random letters and digits: no piece of one turns up in output by chance. */
export function randomSecret(length = 24): string {
  let out = '';
  while (out.length < length)
    out += randomBytes(32)
      .toString('base64')
      .replace(/[^A-Za-z0-9]/g, '');
  return out.slice(0, length);
}

const base32 = (bytes: Buffer): string => {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = 0;
  let value = 0;
  let out = '';
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return out;
};

export type FormName = 'as is' | 'reversed' | 'upper case' | 'lower case' | 'base64' | 'hex' | 'base32' | 'a piece';

/**
 * Every form a transformed leak of `value` (at least 16 characters) could take, each with its name: as is, reversed,
 * upper/lower case, base64 and base32 of it at each alignment, hex, and 8-character pieces at every fourth character.
 */
export function namedForms(value: string): { form: string; name: FormName }[] {
  const out: { form: string; name: FormName }[] = [
    { form: value, name: 'as is' },
    { form: [...value].reverse().join(''), name: 'reversed' },
    { form: value.toUpperCase(), name: 'upper case' },
    { form: value.toLowerCase(), name: 'lower case' },
    { form: Buffer.from(value).toString('hex'), name: 'hex' },
  ];
  // base64 groups 3 bytes and base32 5: one form per alignment, the middle only (independent of what came before and
  // after the value).
  for (const pad of ['', 'x', 'xx'])
    out.push({
      form: Buffer.from(pad + value)
        .toString('base64')
        .slice(4, -4),
      name: 'base64',
    });
  for (const pad of ['', 'x', 'xx', 'xxx', 'xxxx'])
    out.push({ form: base32(Buffer.from(pad + value)).slice(8, -8), name: 'base32' });
  for (let i = 0; i + 8 <= value.length; i += 4) out.push({ form: value.slice(i, i + 8), name: 'a piece' });
  return out.filter((f) => f.form.length >= 8);
}

/** The forms alone (containment-secrets.test.ts checks none of them reaches the model). */
export const forms = (value: string): string[] => namedForms(value).map((f) => f.form);

export interface FoundSecret<T> {
  /** What the caller registered the secret with (where it lives, what it is). */
  tag: T;
  form: FormName;
  /** The text around the match, shortened. */
  context: string;
}

const WINDOW = 8;

/**
 * Finds registered secrets in texts by any of their forms. Every form is at least 8 characters, so a form's first 8
 * characters index it: one pass over a text looks each 8-character window up, and only candidates are compared whole.
 * `caseless` compares lower-cased (DNS names: resolvers and servers may change the case of a name).
 */
export class SecretScanner<T> {
  /** Forms by their first 8 characters: as they are, and lower-cased for caseless finds. */
  private readonly exact = new Map<string, { form: string; name: FormName; tag: T }[]>();
  private readonly lower = new Map<string, { form: string; name: FormName; tag: T }[]>();

  add(value: string, tag: T): void {
    for (const f of namedForms(value)) {
      for (const [map, form] of [
        [this.exact, f.form],
        [this.lower, f.form.toLowerCase()],
      ] as const) {
        const key = form.slice(0, WINDOW);
        const list = map.get(key) ?? [];
        if (!list.some((e) => e.form === form && e.tag === tag)) list.push({ form, name: f.name, tag });
        map.set(key, list);
      }
    }
  }

  /** Every registered secret found in `text`, once per secret (its first form found). */
  find(text: string, caseless = false): FoundSecret<T>[] {
    const hay = caseless ? text.toLowerCase() : text;
    const map = caseless ? this.lower : this.exact;
    const found = new Map<T, FoundSecret<T>>();
    for (let i = 0; i + WINDOW <= hay.length; i += 1) {
      const list = map.get(hay.slice(i, i + WINDOW));
      if (!list) continue;
      for (const e of list) {
        if (found.has(e.tag) || !hay.startsWith(e.form, i)) continue;
        const context = text.slice(Math.max(0, i - 30), i + e.form.length + 30).replace(/\s+/g, ' ');
        found.set(e.tag, { tag: e.tag, form: e.name, context });
      }
    }
    return [...found.values()];
  }
}
