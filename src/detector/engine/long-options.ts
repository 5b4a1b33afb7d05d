// GNU-style long options and their abbreviations: getopt_long (coreutils, findutils, tar, sed, grep, wget, man),
// git's and perf's parse-options, GnuPG and Python's getopt/optparse/argparse all accept any unambiguous prefix of a
// long option (`--compress-prog` for `--compress-program`), so a check that looks for `--name` must find `--na` too.
// Programs with their own parsers (node, ruby, php, apt, dpkg, rpm's popt, rsync, ripgrep, bwrap, cmake) take
// only the full name and opt out. Pure, workflow-safe.
import type { Word } from './words.js';

/** Fewest characters after `--` an abbreviation has before it counts (one letter is too often ambiguous). */
const MIN_ABBREVIATION = 2;

/**
 * Whether `given` (a word's name part, `--na` of `--na=value`) names the long option `name`: the full name, or, when
 * the program abbreviates, a prefix of it with at least two characters after `--`. An ambiguous prefix also matches
 * (the program refuses it, so asking costs nothing).
 */
export function namesLong(given: string, name: string, abbreviate = true): boolean {
  if (given === name) return true;
  // A prefix of `name` that starts with `--`: `name` is a long option too.
  return abbreviate && given.startsWith('--') && given.length >= 2 + MIN_ABBREVIATION && name.startsWith(given);
}

/**
 * Whether the word `t` is the option `opt`, and how its value is given: `{ attached }` for `--opt=v`, `-ov` (a short
 * option with its value attached) or `--op=v` (an abbreviation), `{ next: true }` for `--opt v` or `-o v`, undefined
 * when it is another word.
 */
export function optionWord(
  t: string,
  opt: string,
  abbreviate = true,
): { attached: string } | { next: true } | undefined {
  if (opt.startsWith('--')) {
    const eq = t.indexOf('=');
    const name = eq < 0 ? t : t.slice(0, eq);
    if (!namesLong(name, opt, abbreviate)) return undefined;
    return eq < 0 ? { next: true } : { attached: t.slice(eq + 1) };
  }
  if (t === opt) return { next: true };
  if (t.startsWith(opt) && t.length > opt.length) return { attached: t.slice(opt.length) };
  return undefined;
}

/** The long option of `names` that `given` names (the full name first), or undefined. */
export function resolveLong(given: string, names: readonly string[], abbreviate = true): string | undefined {
  if (names.includes(given)) return given;
  return abbreviate ? names.find((n) => namesLong(given, n)) : undefined;
}

/**
 * Every value of the given options, attached (`-Ilib`, `--require=x`) or in the next word. A long option also matches
 * its abbreviations (`--req=x`, long-options.ts) unless `abbreviate` is false, for programs that take only full names.
 */
export function optionValues(args: readonly Word[], opts: readonly string[], abbreviate = true): Word[] {
  const out: Word[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const t = args[i]!.text;
    if (t === '--') break;
    for (const o of opts) {
      const m = optionWord(t, o, abbreviate);
      if (!m) continue;
      if ('attached' in m) out.push({ ...args[i]!, text: m.attached });
      else if (args[i + 1]) out.push(args[(i += 1)]!);
      break;
    }
  }
  return out;
}
