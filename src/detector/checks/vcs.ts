// Version-control history: git commands that destroy commits, refs, stashes, reflogs or the working tree's changes
// (force and delete pushes, reset --hard, clean, branch -D, stash drop, reflog expire, gc --prune=now, filter-branch,
// checkout/restore of whole trees, update-ref -d, ...), hooks and config keys that run code, and hg/svn/bfg. Pure.
import { has, parseFlags, type Flags } from '../engine/argv.js';
import { classifyPath } from '../engine/paths.js';
import { literal, type Word } from '../engine/words.js';
import { always, show, type Check, type CheckContext } from './types.js';
import type { Argv } from '../engine/argv.js';
import { gitPushToForge } from './forge.js';
import { names } from '../engine/names.js';
import { judges } from './registry.js';
import type { GitCheck } from '../programs/git/call.js';

/** Branches a repository lives on: deleting one loses the line every other branch comes from. */
const MAIN_BRANCH = /^(main|master|trunk|develop|development|production|prod|release([/-].*)?|stable|HEAD)$/;

/** A pathspec that covers a whole tree rather than a file: `.`, `:/`, a directory, a glob. */
const broad = (w: Word): boolean => /^\.\/?$|^:[/(]|\/$|[*?[]/.test(w.text) || w.pattern || w.dynamic;

function push(cmd: Argv, f: Flags, ctx: CheckContext): void {
  if (has(f, 'n', '--dry-run')) return;
  const forced =
    has(f, 'fd', '--force', '--mirror', '--delete', '--prune') ||
    [...f.long].some((l) => l.startsWith('--force-with-lease') || l === '--force-if-includes');
  const refspec = f.operands.slice(1).some((o) => o.text.startsWith('+') || /^:./.test(o.text));
  if (forced || refspec) ctx.add('git-force-push', show(cmd));
}

function configKey(cmd: Argv, operands: Word[], ctx: CheckContext): void {
  const [key, value] = operands.map((w) => w.text);
  if (!key || value === undefined) return;
  const k = key.toLowerCase();
  if (k === 'core.hookspath') {
    const c = classifyPath(literal(value), ctx.where);
    if (c !== 'inside') ctx.add('git-hook', show(cmd));
  } else if (
    (k === 'core.fsmonitor' && !/^(true|false)$/i.test(value)) ||
    k === 'core.sshcommand' ||
    /^(filter|diff)\..*\.(clean|smudge|textconv|process)$/.test(k)
  ) {
    ctx.add('git-hook', show(cmd));
  }
  const alias = /^alias\./.test(k) && value.startsWith('!') ? value.slice(1) : undefined;
  if (alias) ctx.script(alias);
}

/** What each git subcommand destroys; `rest` are the words after the subcommand. */
function subcommand(sub: string, rest: Word[], cmd: Argv, ctx: CheckContext): void {
  const f = parseFlags(
    rest,
    names(`
    -o --push-option --repo -e --exclude -m --message --source -s --expire --expire-unreachable --index-filter
    --tree-filter --msg-filter --env-filter --path --conflict
  `),
  );
  const ops = f.operands;
  const history = (): void => ctx.add('git-history', show(cmd));
  switch (sub) {
    case 'push':
      gitPushToForge(['push', ...rest.map((w) => w.text)], ctx, show(cmd));
      return push(cmd, f, ctx);
    case 'reset':
      if (has(f, '', '--hard')) ctx.add('git-reset-hard', show(cmd));
      return;
    case 'clean':
      if (has(f, 'f', '--force') && !has(f, 'n', '--dry-run')) ctx.add('git-clean', show(cmd));
      return;
    case 'branch': {
      // -M / -C overwrite an existing branch. A forced delete (-D, --delete --force) of a local branch named here is
      // local work (its commits stay in the reflog); of the main branch, or of branches listed at run time, it asks.
      if (f.short.has('M') || f.short.has('C')) history();
      const forcedDelete = f.short.has('D') || (has(f, 'd', '--delete') && has(f, 'f', '--force'));
      const named = ops.length > 0 && ops.every((o) => !o.dynamic && !o.pattern && !MAIN_BRANCH.test(o.text));
      if (forcedDelete && (!named || cmd.viaXargs || has(f, 'r', '--remotes'))) history();
      return;
    }
    case 'tag':
      if (has(f, 'd', '--delete')) history();
      return;
    case 'stash':
      if (['drop', 'clear'].includes(ops[0]?.text ?? '')) history();
      return;
    case 'reflog':
      if (['expire', 'delete'].includes(ops[0]?.text ?? '')) history();
      return;
    case 'gc':
      if ([...f.values].some(([k, v]) => k === '--prune' && /^(now|all)$/.test(v))) history();
      return;
    case 'prune':
      if (!has(f, 'n', '--dry-run')) history();
      return;
    case 'filter-branch':
    case 'filter-repo':
      return history();
    case 'update-ref':
    case 'symbolic-ref':
      if (has(f, 'd', '--delete')) history();
      else if (sub === 'update-ref' && ops.some((o) => /^0{40}$/.test(o.text))) history();
      return;
    case 'checkout': {
      if (has(f, 'bB', '--orphan') && !has(f, 'f', '--force')) return;
      const dashes = rest.findIndex((w) => w.text === '--');
      const paths = dashes >= 0 ? rest.slice(dashes + 1) : ops;
      if (has(f, 'f', '--force') || paths.some(broad)) history();
      return;
    }
    case 'switch':
      if (has(f, 'f', '--force', '--discard-changes')) history();
      return;
    case 'restore': {
      const worktree = has(f, 'W', '--worktree') || !has(f, 'S', '--staged');
      if (worktree && ops.some(broad)) history();
      return;
    }
    case 'worktree':
      if (ops[0]?.text === 'remove' && has(f, 'f', '--force')) history();
      return;
    case 'rm':
      if (has(f, 'r', '') && !has(f, '', '--cached') && ops.some(broad)) history();
      return;
    default:
      return;
  }
}

export const gitHistory: GitCheck = (call, cmd, _io, ctx) => {
  // An alias defined with -c alias.x='!cmd' runs a shell command.
  for (const s of [...call.settings, ...(call.configWrite ? [call.configWrite] : [])])
    configKey(cmd, [literal(s.key), literal(s.value)], ctx);
  if (call.sub) subcommand(call.sub, call.rest, cmd, ctx);
};

/** hg strip / purge / rollback / histedit --force; svn delete of a URL; bfg rewrites history. */
const hg: Check = (cmd, _io, ctx) => {
  const sub = cmd.args.find((a) => !a.text.startsWith('-'))?.text;
  if (sub && /^(strip|prune|purge|clean|rollback|obsolete)$/.test(sub)) ctx.add('git-history', show(cmd));
};

const svn: Check = (cmd, _io, ctx) => {
  const f = parseFlags(cmd.args, ['-m', '--message']);
  const sub = f.operands[0]?.text;
  if (sub && /^(delete|del|remove|rm)$/.test(sub) && f.operands.slice(1).some((o) => /^[a-z+]+:\/\//.test(o.text)))
    ctx.add('git-history', show(cmd));
};

judges(
  import.meta.url,
  {
    hg,
    svn,
    'bfg git-filter-repo': always('git-history'),
  },
  { claims: true },
);
