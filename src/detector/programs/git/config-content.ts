// What a written file's content makes git run later, wherever the file lands: git configuration holding a command
// (fsmonitor, pager, aliases with `!`, drivers, helpers, hooksPath, includes), and a HEAD completing a git directory
// around a config already there. A config file can become a git directory's later (a template, a bare repository
// built piece by piece, an include), so its content asks whatever its name. Pure.
import { normalizePath } from '../../../common/paths.js';
import type { CheckContext } from '../../checks/types.js';
import { dirOf, joinKey } from '../loaders/run-file.js';
import type { Word } from '../../engine/words.js';
import { GIT_COMMAND_KEY, parseGitConfig } from './config.js';

/** Keys that change what git runs without being a command line themselves. */
const GIT_STEERING_KEY =
  /^(core\.(hookspath|worktree|alternaterefscommand)|include\.path|includeif\..+\.path|init\.templatedir|protocol\.(ext\.)?allow|extensions\.worktreeconfig)$/i;

/** A section header git accepts: `[core]`, `[alias]`, `[filter "x"]`, `[diff.x]`. */
const SECTION = /^\s*\[\s*[A-Za-z][\w.-]*(\s+"(?:\\.|[^"\\])*")?\s*\]/m;

/** The first setting of git configuration text that runs a program or changes what git runs, if any. */
export function gitConfigDanger(text: string): string | undefined {
  if (!SECTION.test(text)) return undefined;
  for (const s of parseGitConfig(text)) {
    const value = s.value.trim();
    if (s.key.startsWith('alias.')) {
      if (value.startsWith('!')) return s.key;
    } else if (/^protocol\.(ext\.)?allow$/.test(s.key)) {
      if (s.key === 'protocol.ext.allow' ? value !== 'never' : value === 'always') return s.key;
    } else if (/^extensions\.worktreeconfig$/.test(s.key)) continue;
    else if ((GIT_COMMAND_KEY.test(s.key) || GIT_STEERING_KEY.test(s.key)) && value !== '') return s.key;
  }
  return undefined;
}

/** HEAD as git requires it of a git directory: a symbolic ref under refs/, or an object name. */
const GIT_HEAD = /^(ref: refs\/\S+|[0-9a-f]{40}([0-9a-f]{24})?)\s*$/;

/**
 * A write of `content` (a file tool's, or what a redirect writes, when the gate can see it) onto `target`: git
 * configuration that runs a program asks wherever it goes; a git HEAD written beside a `config` asks (the directory
 * becomes a git directory whose config the person's git reads).
 */
export function gitContentWrite(target: Word, content: string | undefined, detail: string, ctx: CheckContext): void {
  if (content === undefined || target.dynamic) return;
  const key = content.length <= 200_000 ? gitConfigDanger(content) : undefined;
  if (key !== undefined) {
    ctx.add('git-hook', `${detail} (git configuration with ${key}: it runs a program once this file is a git config)`);
    return;
  }
  if (!/(^|\/)HEAD$/.test(target.text) || !GIT_HEAD.test(content.trim())) return;
  const written = ctx.keyOf(target.text);
  if (typeof written !== 'string' || !ctx.reading) return;
  const config = ctx.readFile(joinKey(dirOf(normalizePath(written)), 'config'));
  if (config !== undefined && 'text' in config)
    ctx.add('git-hook', `${detail} (a git HEAD beside a config file: the directory becomes a git directory)`);
}

/** git's own template directories: what a plain `git init` copies anyway. */
const SYSTEM_TEMPLATES = /^\/(usr\/(local\/)?share|opt\/homebrew\/share)\/git-core\/templates\/?$/;

/**
 * `git init/clone` with a template directory (--template, init.templateDir): everything in it is copied into the new
 * (or existing) git directory: hooks, config, commondir. What is there later is not what is judged now: it asks.
 */
export function templateDir(sub: string, dir: string, ctx: CheckContext): void {
  if (dir === '' || SYSTEM_TEMPLATES.test(normalizePath(dir))) return;
  ctx.add(
    'git-hook',
    `git ${sub} with template directory ${dir} (its hooks, config and commondir are copied into the git directory)`,
  );
}
