// Version-control history: git commands that destroy commits, refs, stashes, reflogs or the working tree's changes
// (force and delete pushes, reset --hard, clean, branch -D, stash drop, reflog expire, gc --prune=now, filter-branch,
// checkout/restore of whole trees, update-ref -d, ...), hooks and config keys that run code, and hg/svn/bfg. Pure.
import { has, parseFlags, type Flags } from '../engine/argv.js';
import { classifyPath } from '../engine/paths.js';
import { literal, type Word } from '../engine/words.js';
import { always, show, when, type CheckContext } from './types.js';
import type { Argv } from '../engine/argv.js';
import { gitPushToForge } from './forge.js';
import { keyTable, names } from '../engine/names.js';
import { judges } from './registry.js';
import type { GitCheck } from '../programs/git/call.js';

/** Branches a repository lives on: deleting one loses the line every other branch comes from. */
const MAIN_BRANCH = /^(main|master|trunk|develop|development|production|prod|release([/-].*)?|stable|HEAD)$/;

/** A pathspec that covers a whole tree rather than a file: `.`, `:/`, a directory, a glob. */
const broad = (w: Word): boolean => /^\.\/?$|^:[/(]|\/$|[*?[]/.test(w.text) || w.pattern || w.dynamic;

const dryRun = (f: Flags): boolean => has(f, 'n', '--dry-run');
const deletes = (f: Flags): boolean => has(f, 'd', '--delete');

function configKey(cmd: Argv, key: string, value: string, ctx: CheckContext): void {
  const k = key.toLowerCase();
  const hook =
    (k === 'core.hookspath' && classifyPath(literal(value), ctx.where) !== 'inside') ||
    (k === 'core.fsmonitor' && !/^(true|false)$/i.test(value)) ||
    k === 'core.sshcommand' ||
    /^(filter|diff)\..*\.(clean|smudge|textconv|process)$/.test(k);
  if (hook) ctx.add('git-hook', show(cmd));
  const alias = /^alias\./.test(k) && value.startsWith('!') ? value.slice(1) : undefined;
  if (alias) ctx.script(alias);
}

type Judge = (f: Flags, ops: Word[], rest: Word[], cmd: Argv) => boolean;

/** What each git subcommand destroys, as a rule and its test; `rest` are the words after the subcommand. */
const SUBCOMMANDS = keyTable<[rule: string, destroys: Judge]>({
  // A forced or deleting push, or a refspec that forces (`+main`) or deletes (`:old`).
  push: [
    'git-force-push',
    (f) =>
      !dryRun(f) &&
      (has(f, 'fd', '--force', '--mirror', '--delete', '--prune') ||
        [...f.long].some((l) => l.startsWith('--force-with-lease') || l === '--force-if-includes') ||
        f.operands.slice(1).some((o) => o.text.startsWith('+') || /^:./.test(o.text))),
  ],
  reset: ['git-reset-hard', (f) => has(f, '', '--hard')],
  clean: ['git-clean', (f) => has(f, 'f', '--force') && !dryRun(f)],
  // -M / -C overwrite an existing branch. A forced delete (-D, --delete --force) of a local branch named here is
  // local work (its commits stay in the reflog); of the main branch, or of branches listed at run time, it asks.
  branch: [
    'git-history',
    (f, ops, _rest, cmd) => {
      const forcedDelete = f.short.has('D') || (deletes(f) && has(f, 'f', '--force'));
      const named = ops.length > 0 && ops.every((o) => !o.dynamic && !o.pattern && !MAIN_BRANCH.test(o.text));
      return (
        f.short.has('M') || f.short.has('C') || (forcedDelete && (!named || cmd.viaXargs || has(f, 'r', '--remotes')))
      );
    },
  ],
  tag: ['git-history', deletes],
  stash: ['git-history', (_f, ops) => ['drop', 'clear'].includes(ops[0]?.text ?? '')],
  reflog: ['git-history', (_f, ops) => ['expire', 'delete'].includes(ops[0]?.text ?? '')],
  gc: ['git-history', (f) => [...f.values].some(([k, v]) => k === '--prune' && /^(now|all)$/.test(v))],
  prune: ['git-history', (f) => !dryRun(f)],
  'filter-branch filter-repo': ['git-history', () => true],
  'symbolic-ref': ['git-history', deletes],
  'update-ref': ['git-history', (f, ops) => deletes(f) || ops.some((o) => /^0{40}$/.test(o.text))],
  checkout: [
    'git-history',
    (f, ops, rest) => {
      if (has(f, 'bB', '--orphan') && !has(f, 'f', '--force')) return false;
      const dashes = rest.findIndex((w) => w.text === '--');
      return has(f, 'f', '--force') || (dashes >= 0 ? rest.slice(dashes + 1) : ops).some(broad);
    },
  ],
  switch: ['git-history', (f) => has(f, 'f', '--force', '--discard-changes')],
  restore: ['git-history', (f, ops) => (has(f, 'W', '--worktree') || !has(f, 'S', '--staged')) && ops.some(broad)],
  worktree: ['git-history', (f, ops) => ops[0]?.text === 'remove' && has(f, 'f', '--force')],
  rm: ['git-history', (f, ops) => has(f, 'r', '') && !has(f, '', '--cached') && ops.some(broad)],
});

/** Judges one git subcommand; push also goes to the forge check. */
function subcommand(sub: string, rest: Word[], cmd: Argv, ctx: CheckContext): void {
  const f = parseFlags(
    rest,
    names(`
    -o --push-option --repo -e --exclude -m --message --source -s --expire --expire-unreachable --index-filter
    --tree-filter --msg-filter --env-filter --path --conflict
  `),
  );
  if (sub === 'push') gitPushToForge(['push', ...rest.map((w) => w.text)], ctx, show(cmd));
  const judge = SUBCOMMANDS[sub];
  if (judge?.[1](f, f.operands, rest, cmd)) ctx.add(judge[0], show(cmd));
}

export const gitHistory: GitCheck = (call, cmd, _io, ctx) => {
  // An alias defined with -c alias.x='!cmd' runs a shell command.
  for (const s of [...call.settings, ...(call.configWrite ? [call.configWrite] : [])])
    configKey(cmd, s.key, s.value, ctx);
  if (call.sub) subcommand(call.sub, call.rest, cmd, ctx);
};

judges(
  import.meta.url,
  {
    // hg strip / purge / rollback / histedit --force; svn delete of a URL; bfg rewrites history.
    hg: when('git-history', (w) =>
      /^(strip|prune|purge|clean|rollback|obsolete)$/.test(w.find((t) => !t.startsWith('-')) ?? ''),
    ),
    svn: when('git-history', (_w, cmd) => {
      const [sub, ...rest] = parseFlags(cmd.args, ['-m', '--message']).operands;
      return /^(delete|del|remove|rm)$/.test(sub?.text ?? '') && rest.some((o) => /^[a-z+]+:\/\//.test(o.text));
    }),
    'bfg git-filter-repo': always('git-history'),
  },
  { claims: true },
);
