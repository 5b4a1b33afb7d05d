// Words that mix Latin letters with look-alike letters of another script (`gіthub.com` with a Cyrillic і, a
// branch `maіn`), are spelled wholly in look-alikes (`раураl`), or use another form of an ASCII letter or digit
// (fullwidth `ｍａｉｎ`, mathematical `𝗆𝖺𝗂𝗇`, a combining mark on an ASCII letter): where they are, so the renderer
// can escape the letters that are not what they look like. Workflow-safe (pure).

/** Host, branch, path and identifier words: letters, marks, digits and the punctuation that joins them. */
const WORD = /[\p{L}\p{M}\p{N}._/-]+/gu;

/** Scripts whose letters pass for Latin ones. */
const LOOKALIKE_SCRIPTS: [string, RegExp][] = 'Cyrillic Greek Armenian Cherokee Coptic'
  .split(' ')
  .map((script) => [script, new RegExp(`\\p{Script=${script}}`, 'u')]);
const LATIN = /\p{Script=Latin}/u;

/** Letters of those scripts drawn like a Latin letter in common fonts (Cherokee is rare enough to count whole). */
const LIKE_LATIN = new Set(
  [
    ...'аеорсухіјѕԁԛԝһӏАВЕКМНОРСТХІЈЅ', // Cyrillic
    ...'αιονρυχΑΒΕΖΗΙΚΜΝΟΡΤΥΧ', // Greek
    ...'օսհոցԳ', // Armenian
  ].map((c) => c.codePointAt(0)!),
);

/** A character that is another form of ASCII (fullwidth, mathematical, a ligature): NFKC makes it plain ASCII. */
export const asciiInDisguise = (ch: string): boolean =>
  !/^[\x00-\x7f]$/.test(ch) && /^[\x21-\x7e]+$/.test(ch.normalize('NFKC'));

function scriptOf(ch: string): string {
  if (LATIN.test(ch)) return 'Latin';
  for (const [name, re] of LOOKALIKE_SCRIPTS) if (re.test(ch)) return name;
  return 'other';
}

/** Whether a word hides letters of another script: mixed with Latin (or with each other), or all of them look-alikes. */
function suspicious(word: string): boolean {
  const scripts = new Set<string>();
  let allLookalike = true;
  let letters = 0;
  let previous = '';
  for (const ch of word) {
    if (asciiInDisguise(ch)) return true;
    // A combining mark on an ASCII letter (`mai̇n`): drawn as one letter that is not there.
    if (/\p{M}/u.test(ch) && /[A-Za-z]/.test(previous)) return true;
    previous = ch;
    if (!/\p{L}/u.test(ch)) continue;
    letters += 1;
    const s = scriptOf(ch);
    scripts.add(s);
    if (s === 'Latin' || s === 'other' || (s !== 'Cherokee' && !LIKE_LATIN.has(ch.codePointAt(0)!)))
      allLookalike = false;
  }
  const foreign = [...scripts].filter((s) => s !== 'Latin' && s !== 'other');
  if (foreign.length === 0) return false;
  if (scripts.has('Latin') || foreign.length > 1) return true;
  return allLookalike && letters >= 2;
}

/** [start, end) ranges (UTF-16 indices) of the suspicious words of `text`, in order. */
export function lookalikeRanges(text: string): [number, number][] {
  // Plain ASCII has nothing to look like.
  if (/^[\x00-\x7f]*$/.test(text)) return [];
  const out: [number, number][] = [];
  for (const m of text.matchAll(WORD)) if (suspicious(m[0])) out.push([m.index, m.index + m[0].length]);
  return out;
}
