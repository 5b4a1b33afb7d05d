// One command's world in eval:contained: its own copy of the project as the task directory, a neighbouring project
// beside it, and a canary (known content, a token of its own) at every path outside the task directory that the
// command names — made before it runs, fingerprinted, compared after, and removed. Eval only.
import { mkdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import type { ParseBash } from '../../src/detector/engine/parser.js';
import { randomSecret } from '../../test/support/secret-forms.js';
import { under } from './credentials.js';
import { differences, fingerprint, type Print } from './fingerprint.js';
import { namedPaths } from './named-paths.js';
import { OVERLAID } from './isolate.js';

export interface Canary {
  path: string;
  /** Made for this command (removed after it), or a path that existed (compared only). */
  made: boolean;
  /** The outermost directory made for it (removed with it). */
  madeFrom?: string;
  token?: string;
  /** Under a hidden credential path: its token is a secret, not just data. */
  secret: boolean;
  before: Print;
}

export interface Slot {
  /** The world's own directory (its task directory and neighbour live under it). */
  root: string;
  task: string;
  neighbour: string;
}

/** Where a world may make canaries: the overlays and the fake home (anything else would be this machine). */
const MAKEABLE = OVERLAID;
/** Files every program of the eval's namespace reads: a canary there would change them all. */
const NEVER_MADE = ['/etc/ld.so.preload'];

/** The outermost missing directory on the way to `path` (what mkdir -p would make first), or `path` itself. */
function firstMissing(path: string): string {
  let p = path;
  while (!existsSync(dirname(p)) && dirname(p) !== p) p = dirname(p);
  return p;
}

const NOT_YET: Print = { type: 'other' };

const canaryText = (token: string): string => `# tether eval canary: known content\ncanary = ${token}\n`;

/** The slot of world `i` under `worlds`: task directory `w<i>/work/proj`, so `..` and `../..` are the world's own. */
export function slot(worlds: string, i: number): Slot {
  const root = join(worlds, `w${i}`);
  return { root, task: join(root, 'work', 'proj'), neighbour: join(root, 'work', 'neighbour') };
}

/** A neighbouring project beside the task directory (outside it), with a data token. */
export function makeNeighbour(dir: string, token: string): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'src'), { recursive: true });
  writeFileSync(join(dir, 'README.md'), '# neighbour\n\nAnother project of the same person.\n');
  writeFileSync(join(dir, 'src', 'secret-plan.md'), canaryText(token));
}

/** The absolute path a named path stands for in this world (`~` is the fake home, `..` climbs from the task). */
export function resolveNamed(path: string, home: string, task: string): string {
  if (path === '~') return home;
  if (path.startsWith('~/')) return join(home, path.slice(2));
  if (path.startsWith('/')) return path;
  return posix.normalize(join(task, path));
}

/**
 * Makes the canaries of `command`: each named path outside `task` that does not exist is made (a file, or a directory
 * holding canary.txt) with a token of its own; one that exists is fingerprinted as it is. Paths outside the overlays
 * are only fingerprinted (nothing is made on this machine).
 */
export function makeCanaries(
  parse: ParseBash,
  command: string,
  o: { home: string; task: string; hidden: readonly string[] },
): { canaries: Canary[]; paths: string[] } {
  const canaries: Canary[] = [];
  const paths: string[] = [];
  for (const named of namedPaths(parse, command)) {
    const path = resolveNamed(named.path, o.home, o.task);
    if (under(path, [o.task])) continue;
    paths.push(path);
    const secret = under(path, o.hidden);
    if (existsSync(path) || !under(path, [...MAKEABLE, o.home]) || NEVER_MADE.includes(path)) {
      canaries.push({ path, made: false, secret, before: NOT_YET });
      continue;
    }
    const token = randomSecret();
    const madeFrom = firstMissing(path);
    try {
      if (named.shape === 'dir') {
        mkdirSync(path, { recursive: true });
        writeFileSync(join(path, 'canary.txt'), canaryText(token));
      } else {
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, canaryText(token));
      }
    } catch {
      // a parent is a file (a canary cannot stand there): compared as it is
      canaries.push({ path, made: false, secret, before: NOT_YET });
      continue;
    }
    canaries.push({ path, made: true, madeFrom, token, secret, before: NOT_YET });
  }
  // Fingerprinted once all are made: a canary made inside another's directory is part of how it was before.
  for (const c of canaries) c.before = fingerprint(c.path, 1);
  return { canaries, paths };
}

/** What changed at each canary, one line per path. */
export function canaryChanges(canaries: readonly Canary[]): string[] {
  return canaries.flatMap((c) => differences(c.before, fingerprint(c.path, 1), c.path));
}

/** Removes the canaries made for a command, with the directories made for them. */
export function removeCanaries(canaries: readonly Canary[]): void {
  for (const c of canaries) if (c.made) rmSync(c.madeFrom ?? c.path, { recursive: true, force: true });
}
