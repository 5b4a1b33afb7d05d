// Reads that a directory listing already answers: a module the gate tries in several places (`json.py`,
// `json/__init__.py` beside every importing file) is missing where its directory's listing does not name it, so it
// needs no round of its own. The reader lists the directory of every file it is asked for, in the same round, and
// reads ahead a few files of that directory with the same extension (the modules a package's files import). Pure.
import { listedDir, listingKey, prefetchKey, prefetchOf, type ScriptFile } from './scripts.js';

/** Names in a directory (directories with a trailing `/`), by the directory as keys name it ('' is where it runs). */
export type Listings = Map<string, Set<string>>;

const dirOf = (key: string): string => {
  const i = key.lastIndexOf('/');
  return i < 0 ? '' : key.slice(0, i);
};

/** Keys no listing answers: absolute, home, and dotted paths. */
const unlisted = (key: string): boolean =>
  key.startsWith('/') || key.startsWith('~') || key.split('/').some((p) => p === '..' || p === '.' || p === '');

/** Whether the listings show `key` (a file key, relative to where the command runs) cannot exist. */
function knownMissing(key: string, listings: Listings): boolean {
  if (unlisted(key)) return false;
  const parts = key.split('/');
  for (let i = 0; i < parts.length; i += 1) {
    const names = listings.get(parts.slice(0, i).join('/'));
    if (!names) continue;
    const last = i === parts.length - 1;
    if (last ? !names.has(parts[i]!) && !names.has(`${parts[i]}/`) : !names.has(`${parts[i]}/`)) return true;
  }
  return false;
}

/**
 * Splits what the detector wants read into what the listings answer (missing) and what must be read, adding the
 * listing of each file's directory not listed yet.
 */
export function planReads(
  wanted: readonly string[],
  listings: Listings,
  ahead: ReadonlyMap<string, ScriptFile> = new Map(),
): { missing: string[]; known: string[]; read: string[]; listed: string[] } {
  const missing: string[] = [];
  const known: string[] = [];
  const read: string[] = [];
  const listed = new Set<string>();
  for (const k of wanted) {
    if (ahead.has(k)) known.push(k);
    else if (listedDir(k) === undefined && knownMissing(k, listings)) missing.push(k);
    else {
      read.push(k);
      const dir = dirOf(k);
      // Only directories of the project as keys name them (not `..`, absolute or home paths: those are not listed).
      if (listedDir(k) !== undefined || unlisted(k) || listings.has(dir)) continue;
      listed.add(listingKey(dir));
      // Its siblings of the same kind are read ahead: the modules a package's files import.
      const ext = /(\.[A-Za-z0-9]{1,8})$/.exec(k.slice(dir.length))?.[1];
      if (ext) listed.add(prefetchKey(dir, ext));
    }
  }
  return { missing, known, read, listed: [...listed].filter((l) => !read.includes(l)) };
}

/**
 * Keeps what a round brought back beyond the keys read: the listings asked for on the plan's behalf, and the files
 * read ahead (each under its own key), for later rounds.
 */
export function keepListings(
  got: ReadonlyMap<string, ScriptFile>,
  asked: readonly string[],
  listings: Listings,
  ahead?: Map<string, ScriptFile>,
): void {
  for (const key of asked) {
    const f = got.get(key);
    if (!f || !('entries' in f)) continue;
    if (listedDir(key) !== undefined) listings.set(listedDir(key)!, new Set(f.entries));
    if (ahead && prefetchOf(key) !== undefined)
      for (const name of f.entries) if (got.has(name) && !ahead.has(name)) ahead.set(name, got.get(name)!);
  }
}
