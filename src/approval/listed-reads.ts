// Reads that a directory listing already answers: a module the gate tries in several places (`json.py`,
// `json/__init__.py` beside every importing file) is missing where its directory's listing does not name it, so it
// needs no round of its own. The reader lists the directory of every file it is asked for, in the same round.
// Pure.
import { listedDir, listingKey, type ScriptFile } from './scripts.js';

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
): { missing: string[]; read: string[]; listed: string[] } {
  const missing: string[] = [];
  const read: string[] = [];
  const listed = new Set<string>();
  for (const k of wanted) {
    if (listedDir(k) === undefined && knownMissing(k, listings)) {
      missing.push(k);
      continue;
    }
    read.push(k);
    const dir = dirOf(k);
    // Only directories of the project as keys name them (not `..`, absolute or home paths: those are not listed).
    if (listedDir(k) === undefined && !unlisted(k) && !listings.has(dir)) listed.add(listingKey(dir));
  }
  return { missing, read, listed: [...listed].filter((l) => !read.includes(l)) };
}

/** Keeps the listings a round brought back (those the reader was asked for on the plan's behalf). */
export function keepListings(got: ReadonlyMap<string, ScriptFile>, asked: readonly string[], listings: Listings): void {
  for (const key of asked) {
    const f = got.get(key);
    if (f && 'entries' in f) listings.set(listedDir(key)!, new Set(f.entries));
  }
}
