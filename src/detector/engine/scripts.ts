// Scripts run by path (`sh x.sh`, `./x.sh`, `python x.py`, `source x.sh`): how the analysis names them, the
// language their first line declares, and what a reader gives back. Pure.
import { normalizePath } from '../../common/paths.js';
import type { Where } from './paths.js';

/**
 * A file's content as read in the task's environment, or why it could not be read; for a listing key, the names in
 * the directory. A compiled file carries the digest of its bytes (what the gate's verdict is bound to), since its
 * text is not kept; a text file read in an environment does too (bytes that are not UTF-8 decode lossily).
 */
export type ScriptFile =
  | { text: string; digest?: string }
  | { binary: true; digest?: string }
  | { missing: true }
  | { directory: true }
  | { entries: string[] }
  | { error: string };

/** Keys that ask for the names in a directory (globs, test discovery) rather than a file's content; a name ending in
 * `/` is a directory. */
export const LISTING = '\u0000ls:';

export const listingKey = (dir: string): string => `${LISTING}${dir}`;

/** The directory a listing key names ('' for the current one), or undefined for a file key. */
export const listedDir = (key: string): string | undefined =>
  key.startsWith(LISTING) ? key.slice(LISTING.length) : undefined;

/**
 * Keys that ask for the files of a directory with one extension, read ahead (at most a few): modules a package's
 * files import are then judged without a round of their own. Answered by the files found, each under its own key.
 */
export const PREFETCH = '\u0000pre:';

export const prefetchKey = (dir: string, ext: string): string => `${PREFETCH}${dir}\u0000${ext}`;

/** The directory and extension a read-ahead key names, or undefined for another key. */
export function prefetchOf(key: string): { dir: string; ext: string } | undefined {
  if (!key.startsWith(PREFETCH)) return undefined;
  const [dir, ext] = key.slice(PREFETCH.length).split('\u0000');
  return dir !== undefined && ext !== undefined ? { dir, ext } : undefined;
}

/** Scripts at most this size are judged; a bigger one asks. */
export const MAX_SCRIPT_BYTES = 64 * 1024;

/** Installed programs are not scripts the run wrote: `/usr/bin/python3` is not read. */
const INSTALLED = /^\/(usr|bin|sbin|lib|lib64|opt|nix|snap)\//;

/**
 * The key under which a script is read: the path as written when the command has not changed directory (the
 * environment resolves it where the command runs), otherwise the path below the new directory. Null when the
 * directory is unknown (`cd "$D"`); undefined for an installed program that is not read.
 */
export function scriptKey(written: string, where: Where): string | null | undefined {
  if (INSTALLED.test(written)) return undefined;
  if (written.startsWith('/') || written.startsWith('~') || where.cwd === where.project) return written;
  if (!where.cwd) return null;
  const project = where.project ?? '';
  const below =
    where.cwd === project ? '' : where.cwd.startsWith(`${project}/`) ? where.cwd.slice(project.length + 1) : where.cwd;
  return normalizePath(below ? `${below}/${written}` : written);
}

const LANGUAGES: [RegExp, string | null][] = [
  [/^(ba|da|k|mk|z|a|ya|fi)?sh$/, null],
  [/^python[\d.]*$/, 'python'],
  [/^(node|nodejs|deno|bun|tsx|ts-node|ts-node-esm|esno)$/, 'javascript'],
  [/^perl[\d.]*$/, 'perl'],
  [/^ruby[\d.]*$/, 'ruby'],
  [/^php[\d.]*$/, 'php'],
  [/^(g|m|n|busybox-)?awk$/, 'awk'],
  [/^g?sed$/, 'sed'],
  [/^(tclsh[\d.]*|wish[\d.]*|expect|jimsh)$/, 'tcl'],
  [/^(lua[\d.]*|luajit)$/, 'lua'],
  [/^Rscript$/, 'r'],
  [/^julia$/, 'julia'],
  [/^g?make$/, 'make'],
  [/^gnuplot$/, 'gnuplot'],
  [/^emacs$/, 'elisp'],
  [/^(guile|racket|sbcl|clisp)$/, 'lisp'],
];

/**
 * The language a script's `#!` line names: null for a shell (and for no `#!` line: the shell runs it), a language
 * for an interpreter the detector reads, undefined for an interpreter it cannot read.
 */
export function shebangLanguage(text: string): string | null | undefined {
  const m = /^#!\s*(\S+)(?:[ \t]+(.*))?/.exec(text);
  if (!m) return null;
  let program = m[1]!.slice(m[1]!.lastIndexOf('/') + 1);
  if (program === 'env') program = (m[2] ?? '').split(/\s+/).find((w) => w !== '' && !w.startsWith('-')) ?? '';
  for (const [re, language] of LANGUAGES) if (re.test(program)) return language;
  return undefined;
}
