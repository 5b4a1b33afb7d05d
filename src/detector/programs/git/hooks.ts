// What a git command runs by itself, read when it is about to run: the hooks its subcommand triggers (from the hooks
// directory core.hooksPath names, or the repository's), and the commands its configuration holds (pager, editor,
// fsmonitor, ssh command, drivers, helpers, the alias it calls), from the repository's config, the global one and
// `-c`/GIT_CONFIG_* settings. The repository is found as git finds it (`.git` here or in a parent, a `.git` file of
// a worktree or submodule, the directory itself when it is a git directory, --git-dir, GIT_DIR, its commondir or
// GIT_COMMON_DIR). Pure.
import { normalizePath } from '../../../common/paths.js';
import { isGitDirectory } from '../../checks/git-surfaces.js';
import type { CheckContext } from '../../checks/types.js';
import { dirOf, joinKey } from '../loaders/run-file.js';
import { splitAlias } from './call.js';
import { templateDir } from './config-content.js';
import { GIT_COMMAND_KEY, parseGitConfig, type GitSetting } from './config.js';
import { keyTable, names } from '../../engine/names.js';

const COMMIT = ['pre-commit', 'prepare-commit-msg', 'commit-msg', 'post-commit', 'pre-auto-gc', 'post-rewrite'];
const REFS = ['reference-transaction'];
const INDEX = ['post-index-change'];
const MERGE = ['pre-merge-commit', 'prepare-commit-msg', 'commit-msg', 'post-merge', 'pre-auto-gc'];
const REBASE = ['pre-rebase', 'post-rewrite', 'post-checkout', 'prepare-commit-msg', 'commit-msg'];

/** The hooks each subcommand may run (client side). */
const HOOKS = keyTable<string[]>({
  'commit cherry-pick revert': [...COMMIT, ...REFS, ...INDEX],
  merge: [...MERGE, ...REFS, ...INDEX],
  pull: [...MERGE, ...REBASE, ...REFS, ...INDEX],
  push: ['pre-push', ...REFS],
  'checkout switch clone worktree bisect submodule': ['post-checkout', ...REFS, ...INDEX],
  rebase: [...REBASE, ...COMMIT, ...REFS, ...INDEX],
  am: ['applypatch-msg', 'pre-applypatch', 'post-applypatch', ...COMMIT, ...REFS, ...INDEX],
  'gc maintenance': ['pre-auto-gc', ...REFS],
  'send-email': ['sendemail-validate'],
  p4: ['p4-changelist', 'p4-prepare-changelist', 'p4-post-changelist', 'p4-pre-submit'],
  'stash reset filter-branch': [...REFS, ...INDEX],
  'restore add rm mv apply update-index read-tree status checkout-index mergetool': INDEX,
  'branch tag fetch update-ref symbolic-ref notes replace fetch-pack pack-refs remote fast-import': REFS,
  'sparse-checkout': ['post-checkout', ...INDEX],
  'commit-tree send-pack http-push difftool prune prune-packed repack commit-graph multi-pack-index clean': [],
});
/** Subcommands that only read: they run no hook (their pager and drivers may still run). */
const READ_ONLY = names(`log show diff blame annotate grep ls-files ls-tree ls-remote cat-file rev-parse rev-list
  describe shortlog config version help var show-ref for-each-ref count-objects fsck archive bundle whatchanged
  name-rev merge-base diff-tree diff-files diff-index show-branch reflog range-diff cherry check-ignore check-attr
  check-ref-format verify-commit verify-tag hash-object init credential instaweb`);
const ALL_HOOKS = [...new Set(Object.values(HOOKS).flat())];

/** The hooks a subcommand may run; an unknown one (an alias, an extension `git-foo`) may run any. */
export function hooksOf(sub: string | undefined): string[] {
  if (sub === undefined || READ_ONLY.includes(sub)) return [];
  return Object.hasOwn(HOOKS, sub) ? HOOKS[sub]! : ALL_HOOKS;
}

export interface GitInvocation {
  /** The subcommand as written (an alias is resolved here). */
  sub: string | undefined;
  /** `-c key=value` settings and GIT_CONFIG_KEY_n/VALUE_n pairs, in order. */
  settings: GitSetting[];
  /** The words after the subcommand: a shell alias gets them after its command. */
  words?: readonly string[];
  /** --git-dir or GIT_DIR. */
  gitDir?: string;
  /** GIT_COMMON_DIR: where configuration and hooks are read from instead of the git directory's commondir. */
  commonDir?: string;
  /** -C DIR (relative to the current directory). */
  dir?: string;
  /**
   * The global configuration files instead of ~/.gitconfig and ~/.config/git/config: GIT_CONFIG_GLOBAL, or the two as
   * HOME and XDG_CONFIG_HOME place them. Relative to the current directory, or starting with `~`.
   */
  globalConfigs?: string[];
}

/** The directories git looks for `.git` in, nearest first: this one, its parents in the project, and above it. */
function ancestors(start: string, project: string | undefined): string[] {
  const out: string[] = [start];
  // Above the project, relative keys climb with `..`; the project's own depth says how far there is to go.
  const depth = project ? project.split('/').filter((p) => p !== '').length : undefined;
  let k = start;
  for (let i = 0; i < 24 && k !== '/'; i += 1) {
    const ups = k.split('/');
    if (depth !== undefined && !k.startsWith('/') && ups.every((p) => p === '..') && ups.length >= depth) break;
    k = joinKey(k, '..');
    out.push(k);
  }
  return out;
}

/** The settings of a config file and the files it includes, or undefined while one is being read. */
function readConfig(key: string, ctx: CheckContext, seen: Set<string> = new Set()): GitSetting[] | undefined {
  if (seen.has(key) || seen.size > 8) return [];
  seen.add(key);
  const f = ctx.readFile(key);
  if (f === undefined) return undefined;
  if (!('text' in f)) return [];
  const settings: GitSetting[] = [];
  for (const s of parseGitConfig(f.text)) {
    if (/^include(if\..+)?\.path$/.test(s.key)) {
      // includeIf conditions are not evaluated: the included file is read either way. An absolute path stays one.
      const inc = s.value.startsWith('~/') ? normalizePath(s.value) : joinKey(dirOf(key), s.value);
      const sub = readConfig(inc, ctx, seen);
      if (sub === undefined) return undefined;
      settings.push(...sub);
    } else settings.push(s);
  }
  return settings;
}

/**
 * Judges what `git SUB` will run by itself here. Waits (asks the reader) for what it has not read yet: the `.git`
 * entries up to the root, a worktree's commondir, the configuration files, the hooks.
 */
export function gitRuns(inv: GitInvocation, ctx: CheckContext): void {
  // A shell alias set on the command line or in the environment wins over the files' ones: judged before they are read.
  runAlias(inv, inv.settings, ctx);
  const here = ctx.keyOf(inv.dir ?? '.');
  if (here === null) {
    if (hooksOf(inv.sub).length > 0)
      ctx.add('unread-script', `git runs hooks of a repository in a directory known only at run time`);
    return;
  }
  if (here === undefined) return;
  let top = inv.gitDir === undefined ? undefined : here;
  let gitDir = inv.gitDir === undefined ? undefined : joinKey(here, inv.gitDir);
  if (inv.gitDir === undefined) {
    let pending = false;
    for (const dir of ancestors(here, ctx.where.project)) {
      const f = ctx.readFile(joinKey(dir, '.git'));
      if (f === undefined) {
        pending = true;
        continue;
      }
      if ('missing' in f || 'error' in f) {
        // No .git here: the directory itself may be a git directory (a bare repository, or the shell inside .git).
        const bare = isGitDirectory(dir, ctx);
        if (bare === undefined) pending = true;
        if (bare !== true) continue;
        if (pending) return;
        top = dir;
        gitDir = dir;
        break;
      }
      if (pending) return;
      top = dir;
      if ('directory' in f) gitDir = joinKey(dir, '.git');
      else if ('text' in f) {
        const m = /^gitdir:\s*(.+?)\s*$/m.exec(f.text);
        if (m) gitDir = joinKey(dir, m[1]!);
      }
      break;
    }
    if (pending && top === undefined) return;
  }
  const global =
    inv.globalConfigs?.map((f) => (f.startsWith('~') ? f : joinKey(here, f))) ??
    names('~/.gitconfig ~/.config/git/config');
  // Configuration and hooks come from the common directory: GIT_COMMON_DIR, or what the git directory's commondir
  // names (a linked worktree's, or one a command planted).
  let common: string | undefined;
  if (inv.commonDir !== undefined) common = joinKey(here, inv.commonDir);
  else if (gitDir !== undefined) {
    const c = ctx.readFile(joinKey(gitDir, 'commondir'));
    if (c === undefined) return;
    common = 'text' in c ? joinKey(gitDir, c.text.trim()) : gitDir;
  }
  const settings: GitSetting[] = [];
  /** Adds a config file's settings; false while it is not read yet. */
  const read = (file: string): boolean => {
    const r = readConfig(file, ctx);
    if (r !== undefined) settings.push(...r);
    return r !== undefined;
  };
  for (const file of [...global, ...(common !== undefined ? [joinKey(common, 'config')] : [])]) if (!read(file)) return;
  const last = (key: string): string | undefined => settings.filter((s) => s.key === key).at(-1)?.value;
  // With extensions.worktreeConfig, the git directory's config.worktree is read after the common config.
  const worktreeConfig = last('extensions.worktreeconfig');
  if (gitDir !== undefined && worktreeConfig !== undefined && /^(true|yes|on|1)$/i.test(worktreeConfig))
    if (!read(joinKey(gitDir, 'config.worktree'))) return;
  // `-c include.path=FILE` (and a system file given by GIT_CONFIG_SYSTEM) brings a whole file's settings.
  for (const setting of inv.settings)
    if (!/^include(if\..+)?\.path$/.test(setting.key)) settings.push(setting);
    else if (!read(joinKey(here, setting.value))) return;
  // init.templateDir from a config file: clone, init and a submodule's clone copy that directory in.
  const template = last('init.templatedir');
  if (template !== undefined && (inv.sub === 'init' || inv.sub === 'clone' || inv.sub === 'submodule'))
    templateDir(inv.sub, template, ctx);
  // An alias runs a shell command (`!...`) or another subcommand, whose hooks then run.
  const alias = runAlias(inv, settings, ctx);
  const sub = alias === undefined ? inv.sub : splitAlias(alias)[0];
  for (const s of settings)
    if (GIT_COMMAND_KEY.test(s.key) && s.value.trim() !== '') ctx.script(s.value.replace(/^!/, ''));
  const hooks = hooksOf(sub);
  if (hooks.length === 0 || common === undefined) return;
  const hooksPath = last('core.hookspath');
  const dir =
    hooksPath === undefined || hooksPath === ''
      ? joinKey(common, 'hooks')
      : hooksPath.startsWith('~/')
        ? normalizePath(hooksPath)
        : joinKey(top ?? here, hooksPath);
  for (const h of hooks) {
    const key = joinKey(dir, h);
    ctx.loads(key, 'shell', { file: key, roots: [] });
  }
}

/**
 * The alias `git SUB` runs (the last one set, its name in any case; none for a built-in subcommand). A shell command
 * (`!CMD`) is judged here with the call's words after it, as git runs it: `sh -c 'CMD "$@"' CMD WORDS...`.
 */
function runAlias(inv: GitInvocation, settings: readonly GitSetting[], ctx: CheckContext): string | undefined {
  const sub = inv.sub;
  if (sub === undefined || Object.hasOwn(HOOKS, sub) || READ_ONLY.includes(sub)) return undefined;
  const alias = settings.findLast((s) => s.key === `alias.${sub.toLowerCase()}`)?.value.trim();
  if (!alias?.startsWith('!')) return alias;
  ctx.script([alias.slice(1), ...(inv.words ?? [])].join(' '));
}
