// Writes onto the files a git directory reads commands or other configuration from (config, config.worktree,
// commondir, hooks, info/attributes, a worktree's or submodule's own), in any git directory at any depth: a `.git`
// directory, one a `.git` file points to, a bare repository. The person's own git runs them later, outside the
// sandbox. Pure.
import { normalizePath } from '../../common/paths.js';
import { joinKey } from '../programs/loaders/run-file.js';
import type { Word } from '../engine/words.js';
import type { CheckContext } from './types.js';

/** A path inside a `.git` directory that git reads commands or configuration from, or a `.git` entry itself. */
const IN_DOT_GIT =
  /(^|\/)\.git(\/[^/]+)*\/(config|config\.worktree|commondir|gitdir|hooks(\/[^/]+)?|info\/attributes)\/?$|(^|\/)\.git\/?$/;

/** The same files, relative to the git directory that holds them (a linked worktree's are in worktrees/NAME). */
const SURFACE =
  /^(config|config\.worktree|commondir|hooks(\/[^/]+)?|info\/attributes|worktrees\/[^/]+\/(config|config\.worktree|commondir|gitdir))$/;

/** Names only a git directory has: written after a `cd` to a place not known, they may be one's. */
const GIT_ONLY_NAMES = /(^|\/)(commondir|config\.worktree|gitdir)$/;

/** HEAD as git requires it of a git directory: a symbolic ref under refs/, or an object name. */
const HEAD = /^(ref: refs\/|[0-9a-f]{40}([0-9a-f]{24})?\s*$)/;

/**
 * Whether `dir` (a key) is a git directory as git decides it: a valid HEAD, and objects/ and refs/ (or a commondir
 * that holds them). Undefined while the reader has not been asked yet (the gate asks it, then judges again).
 */
export function isGitDirectory(dir: string, ctx: CheckContext): boolean | undefined {
  if (ctx.gitDirsMade?.has(dir)) return true;
  const head = ctx.readFile(joinKey(dir, 'HEAD'));
  if (head === undefined) return undefined;
  if (!('text' in head) || !HEAD.test(head.text)) return false;
  const common = ctx.readFile(joinKey(dir, 'commondir'));
  const objects = ctx.readFile(joinKey(dir, 'objects'));
  const refs = ctx.readFile(joinKey(dir, 'refs'));
  if (common === undefined || objects === undefined || refs === undefined) return undefined;
  return 'text' in common || ('directory' in objects && 'directory' in refs);
}

/**
 * A write onto `target` (as written; relative to where the command runs, `cd`s of the line and the shell's own
 * directory included): asks when it is one of a git directory's executable surfaces. Inside a `.git` directory that
 * is known from the name; elsewhere (a bare repository, a directory a `.git` file points to, the shell already in
 * `.git`) the directory above is read to see whether it is a git directory.
 */
export function gitSurfaceWrite(target: Word, detail: string, ctx: CheckContext): void {
  if (target.dynamic) return;
  const reason = `${detail} (a file git reads commands from: the person's own git runs them later)`;
  const written = ctx.keyOf(target.text);
  const key = typeof written === 'string' ? normalizePath(written) : written;
  // commondir and gitdir mean something only to git: written anywhere, a template or a directory later made a git
  // directory carries them in (`git init --template=T` copies T/commondir into an existing .git).
  if ([IN_DOT_GIT, GIT_ONLY_NAMES].some((re) => re.test(target.text) || (typeof key === 'string' && re.test(key))))
    return ctx.add('git-hook', reason);
  if (key === null || key === undefined || !ctx.reading) return;
  const parts = key.split('/').filter((p) => p !== '');
  const absolute = key.startsWith('/');
  // The git directory is one, two or three levels above the file (config; hooks/x; worktrees/NAME/config).
  for (let j = parts.length - 1; j >= Math.max(0, parts.length - 3); j -= 1) {
    if (!SURFACE.test(parts.slice(j).join('/'))) continue;
    const above = parts.slice(0, j).join('/');
    const dir = absolute ? `/${above}` : above === '' ? '.' : above;
    if (isGitDirectory(dir, ctx) === true) return ctx.add('git-hook', reason);
  }
}
