// Globs and braces naming files (`sh g?.sh`, `. ./[g]7.sh`, `python3 {a,b}.py`): brace alternatives expanded as
// bash does, glob patterns matched against the directory listings read where the command runs. Pure.
import { listingKey, type ScriptFile } from '../../engine/scripts.js';

/** Alternatives and files matched at most: beyond them the pattern asks. */
const MAX_ALTERNATIVES = 64;

/** `{1..3}`, `{a..c}`, `{01..10..2}`: a sequence; undefined when the text is not one. */
function sequence(body: string): string[] | undefined {
  const m = /^(-?\d+|[a-zA-Z])\.\.(-?\d+|[a-zA-Z])(?:\.\.(-?\d+))?$/.exec(body);
  if (!m) return undefined;
  const numeric = /\d/.test(m[1]!);
  if (numeric !== /\d/.test(m[2]!)) return undefined;
  const from = numeric ? Number(m[1]) : m[1]!.charCodeAt(0);
  const to = numeric ? Number(m[2]) : m[2]!.charCodeAt(0);
  const step = Math.max(1, Math.abs(Number(m[3] ?? 1)));
  const width = numeric && /^-?0\d/.test(m[1]!) ? m[1]!.length : 0;
  const out: string[] = [];
  for (let v = from; from <= to ? v <= to : v >= to; v += from <= to ? step : -step) {
    if (out.length > MAX_ALTERNATIVES) return out;
    out.push(numeric ? String(v).padStart(width, '0') : String.fromCharCode(v));
  }
  return out;
}

/** Brace expansion, as bash does it before globbing; undefined when it yields too many words. */
export function expandBraces(text: string): string[] | undefined {
  for (let i = 0; i < text.length; i += 1) {
    if (text[i] === '\\') {
      i += 1;
      continue;
    }
    if (text[i] !== '{') continue;
    let depth = 0;
    /** Where the braces and their top-level commas stand: the alternatives lie between them. */
    const cuts = [i];
    for (let j = i; j < text.length; j += 1) {
      if (text[j] === '\\') j += 1;
      else if (text[j] === '{') depth += 1;
      else if (text[j] === ',' && depth === 1) cuts.push(j);
      else if (text[j] === '}' && --depth === 0) {
        cuts.push(j);
        const alternatives =
          cuts.length > 2 ? cuts.slice(1).map((c, k) => text.slice(cuts[k]! + 1, c)) : sequence(text.slice(i + 1, j));
        if (!alternatives) break;
        const out: string[] = [];
        for (const alt of alternatives) {
          const rest = expandBraces(`${text.slice(0, i)}${alt}${text.slice(j + 1)}`);
          if (!rest) return undefined;
          out.push(...rest);
          if (out.length > MAX_ALTERNATIVES) return undefined;
        }
        return out;
      }
    }
  }
  return [text];
}

const hasGlob = (segment: string): boolean => /[*?[]/.test(segment.replace(/\\./g, ''));

/** A glob segment as a regular expression over one file name (`*`, `?`, `[...]`, `[!...]`, backslash escapes). */
function segmentRegExp(segment: string): RegExp {
  let out = '';
  for (let i = 0; i < segment.length; i += 1) {
    const c = segment[i]!;
    if (c === '\\' && i + 1 < segment.length) out += escapeRe(segment[(i += 1)]!);
    else if (c === '*') out += '.*';
    else if (c === '?') out += '.';
    else if (c === '[') {
      const end = segment.indexOf(']', i + 2);
      if (end < 0) {
        out += '\\[';
        continue;
      }
      let body = segment.slice(i + 1, end);
      const negated = body.startsWith('!') || body.startsWith('^');
      if (negated) body = body.slice(1);
      out += `[${negated ? '^' : ''}${body.replace(/[\\\]^]/g, '\\$&')}]`;
      i = end;
    } else out += escapeRe(c);
  }
  return new RegExp(`^${out}$`, 's');
}

const escapeRe = (c: string): string => c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** A name below a directory as the pattern writes it ('' is where the command runs). */
const below = (dir: string, name: string): string => `${dir}${dir === '' || dir.endsWith('/') ? '' : '/'}${name}`;

export type GlobResult = { paths: string[] } | { pending: true } | { error: string };

/** Where globs are expanded: `keyOf` turns a path as written into a key; `readFile` reads a directory's listing. */
export interface GlobReader {
  keyOf(written: string): string | null | undefined;
  /** The file (here a listing) by its key; undefined until read. */
  readFile(key: string): ScriptFile | undefined;
}

/** The paths a glob names, as bash would pass them (without nullglob: no match leaves the pattern itself). */
export function expandGlob(pattern: string, reader: GlobReader): GlobResult {
  const words = expandBraces(pattern);
  if (!words) return { error: `${pattern.slice(0, 80)} names too many files to check` };
  const out: string[] = [];
  let pending = false;
  for (const word of words) {
    if (!hasGlob(word)) {
      out.push(word.replace(/\\(.)/g, '$1'));
      continue;
    }
    let branches = [word.startsWith('/') ? '/' : ''];
    for (const segment of word.split('/').filter((s) => s !== '')) {
      if (!hasGlob(segment)) {
        branches = branches.map((b) => below(b, segment.replace(/\\(.)/g, '$1')));
        continue;
      }
      const re = segmentRegExp(segment);
      const next: string[] = [];
      for (const base of branches) {
        const key = reader.keyOf(base === '' ? '.' : base);
        if (key === null || key === undefined) return { error: `${pattern.slice(0, 80)} is in a directory not known` };
        const listing = reader.readFile(listingKey(key));
        if (listing === undefined) {
          pending = true;
          continue;
        }
        if ('error' in listing) return { error: `${base || '.'} ${listing.error}` };
        if (!('entries' in listing)) continue;
        for (const entry of listing.entries) {
          const name = entry.replace(/\/$/, '');
          if (re.test(name) && (segment.startsWith('.') || !name.startsWith('.'))) next.push(below(base, name));
        }
      }
      if (next.length > MAX_ALTERNATIVES) return { error: `${pattern.slice(0, 80)} matches too many files to check` };
      branches = next;
    }
    // No match: bash passes the pattern itself, a file of that name (usually missing: nothing runs).
    out.push(...(branches.length > 0 ? branches.sort() : [word]));
  }
  return pending ? { pending: true } : { paths: out };
}
