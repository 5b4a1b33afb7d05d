// git subcommands that run commands given to them (rebase --exec, difftool -x, bisect run, submodule foreach,
// filter-branch filters, grep -O, --upload-pack/--receive-pack/--exec, send-email's commands, --exec-path
// programs), plumbing that does what a porcelain rule judges (send-pack --force, read-tree -u --reset,
// checkout-index -f), and what the command runs by itself (hooks, configured commands: hooks.ts). Pure.
import { normalizePath } from '../../../common/paths.js';
import { show, type CheckContext } from '../../checks/types.js';
import { literal, type Word } from '../../engine/words.js';
import { joinKey } from '../loaders/run-file.js';
import { optionValues } from '../loaders/preloads.js';
import type { GitSetting } from './config.js';
import { gitContentWrite, templateDir } from './config-content.js';
import { gitRuns, type GitInvocation } from './hooks.js';
import type { GitCheck } from './call.js';
import { keyTable, names } from '../../engine/names.js';

/** Options of a subcommand whose value is a command line, and where it runs. */
const COMMAND_OPTIONS = keyTable<readonly string[]>({
  rebase: names('-x --exec'),
  difftool: names('-x --extcmd'),
  grep: names('-O --open-files-in-pager'),
  clone: names('-u --upload-pack'),
  'fetch pull ls-remote': names('--upload-pack'),
  'push send-pack': names('--receive-pack --exec'),
  'fetch-pack': names('--upload-pack --exec'),
  archive: names('--exec'),
  'send-email': names('--sendmail-cmd --smtp-server --to-cmd --cc-cmd --header-cmd'),
  'filter-branch': names(
    `--env-filter --tree-filter --index-filter --parent-filter --msg-filter --commit-filter --tag-name-filter`,
  ),
});

/** Settings git reads from the environment: GIT_CONFIG_COUNT/KEY_n/VALUE_n, GIT_CONFIG_PARAMETERS ('k=v', 'k'='v'). */
function environmentSettings(ctx: CheckContext): GitSetting[] {
  const env = ctx.commandEnv;
  const out: GitSetting[] = [];
  for (const [name, value] of env) {
    const m = /^GIT_CONFIG_KEY_(\d+)$/.exec(name);
    if (!m) continue;
    const v = env.get(`GIT_CONFIG_VALUE_${m[1]}`);
    if (value.dynamic || v?.dynamic) ctx.add('dynamic-command', `git settings given at run time: ${name}`);
    else out.push({ key: value.text.toLowerCase(), value: v?.text ?? '' });
  }
  const params = env.get('GIT_CONFIG_PARAMETERS');
  if (params?.dynamic) ctx.add('dynamic-command', 'git settings given at run time: GIT_CONFIG_PARAMETERS');
  else if (params)
    for (const m of params.text.matchAll(/'([^'=]+)(?:=([^']*)'|'(?:='([^']*)')?)/g))
      out.push({ key: m[1]!.toLowerCase(), value: m[2] ?? m[3] ?? '' });
  return out;
}

/** Judges the commands a git invocation runs: given in its options, and by itself (hooks, configuration). */
export const gitCommands: GitCheck = (call, cmd, _io, ctx) => {
  const inv: GitInvocation = { sub: call.sub, settings: [...environmentSettings(ctx), ...call.settings] };
  const env = ctx.commandEnv;
  /** A variable's value when the command sets it to one known now. */
  const known = (name: string): string | undefined => (env.get(name)?.dynamic ? undefined : env.get(name)?.text);
  const gitDir = known('GIT_DIR');
  if (gitDir !== undefined) inv.gitDir = gitDir;
  const commonDir = env.get('GIT_COMMON_DIR');
  if (commonDir?.dynamic) ctx.add('dynamic-command', `git reads its configuration from a place known only at run time`);
  else if (commonDir && commonDir.text !== '') inv.commonDir = commonDir.text;
  // The global configuration: GIT_CONFIG_GLOBAL, or HOME's .gitconfig / XDG_CONFIG_HOME's git/config when the
  // command sets them (`HOME=./h git log` reads ./h/.gitconfig).
  const places = names('GIT_CONFIG_GLOBAL HOME XDG_CONFIG_HOME GIT_CONFIG_SYSTEM');
  for (const v of places.map((p) => env.get(p)))
    if (v?.dynamic)
      ctx.add('dynamic-command', `git reads its configuration from a place known only at run time: ${v.text}`);
  const [globalConfig, home, xdg, system] = places.map(known);
  // git reads both $HOME/.gitconfig and $XDG_CONFIG_HOME/git/config (~/.config/git/config when it is unset).
  if (globalConfig !== undefined) inv.globalConfigs = [globalConfig];
  else if (xdg !== undefined || home !== undefined)
    inv.globalConfigs = [`${home ?? '~'}/.gitconfig`, `${xdg ?? `${home ?? '~'}/.config`}/git/config`];
  if (system !== undefined) inv.settings.unshift({ key: 'include.path', value: system });
  const execPath = call.execPath ?? env.get('GIT_EXEC_PATH');
  if (call.dir !== undefined) inv.dir = call.dir;
  inv.words = call.rest.map((w) => w.text);
  if (call.gitDir !== undefined) inv.gitDir = call.gitDir;
  if (call.configEnv) ctx.add('dynamic-command', `${show(cmd)} (a setting taken from a variable at run time)`);
  const { subWord, rest } = call;
  if (subWord?.dynamic) ctx.add('dynamic-command', `git subcommand computed at run time: ${subWord.text}`);
  // Subcommands are programs too: with --exec-path or GIT_EXEC_PATH, git runs DIR/git-SUB.
  if (execPath && inv.sub) {
    if (execPath.dynamic) ctx.add('dynamic-command', 'git runs its programs from a directory known only at run time');
    else ctx.runsFile(literal(joinKey(execPath.text, `git-${inv.sub}`)), null);
  }
  const sub = inv.sub ?? '';
  if (Object.hasOwn(COMMAND_OPTIONS, sub))
    // parse-options (and send-email's Getopt::Long) take abbreviations; filter-branch, a shell script, does not.
    for (const v of optionValues(rest, COMMAND_OPTIONS[sub]!, sub !== 'filter-branch'))
      if (v.dynamic) ctx.computed(v, `git ${sub}`);
      else if (v.text.trim() !== '') ctx.script(v.text);
  if (sub === 'bisect' && rest[0]?.text === 'run' && rest.length > 1) ctx.argv(rest.slice(1));
  if (sub === 'submodule') {
    const at = rest.findIndex((w) => w.text === 'foreach');
    let command = at < 0 ? [] : rest.slice(at + 1);
    while (command[0] && /^(--recursive|--quiet|-q)$/.test(command[0].text)) command = command.slice(1);
    if (command.some((w) => w.dynamic))
      ctx.add('dynamic-command', 'git submodule foreach of a command computed at run time');
    else if (command.length > 0) ctx.script(command.map((w) => w.text).join(' '));
  }
  if (sub === 'for-each-repo') {
    const command = rest.filter((w) => !w.text.startsWith('--config'));
    if (command.length > 0) ctx.argv([literal('git'), ...command]);
  }
  // Plumbing: a forced or deleting send-pack is a forced push; read-tree -u --reset and checkout-index -f
  // overwrite the working tree like checkout -f.
  if (sub === 'send-pack' || sub === 'http-push') {
    const forced = rest.some((w) => /^(--force|-f|--mirror|--delete|-d)$/.test(w.text));
    const refs = rest.filter((w) => !w.text.startsWith('-')).slice(1);
    if (forced || refs.some((w) => /^\+|^:./.test(w.text))) ctx.add('git-force-push', show(cmd));
  }
  const updatesTree = rest.some((w) => /^-[a-z]*u/.test(w.text) || w.text === '--reset');
  const mergesTree = rest.some((w) => w.text === '--reset' || /^-[a-z]*m/.test(w.text));
  if (sub === 'read-tree' && updatesTree && mergesTree) ctx.add('git-history', show(cmd));
  if (sub === 'checkout-index' && rest.some((w) => /^(-[a-z]*f|--force)$/.test(w.text)))
    ctx.add('git-history', show(cmd));
  if (sub === 'fast-import' && rest.some((w) => w.text === '--force')) ctx.add('git-history', show(cmd));
  // clone --template / init --template: the template's hooks are copied in and run (post-checkout on clone).
  for (const t of optionValues(rest, ['--template'])) {
    if (t.dynamic) ctx.add('dynamic-command', 'git clone with a template directory known only at run time');
    else if (sub === 'clone') {
      const dir = ctx.keyOf(t.text);
      if (dir === null)
        ctx.add('unread-script', `git clone --template ${t.text} (in a directory known only at run time)`);
      else if (dir !== undefined) ctx.loads(joinKey(dir, 'hooks/post-checkout'), 'shell', { roots: [] });
    }
  }
  if (sub === 'init' || sub === 'clone') {
    madeGitDirectory(sub, rest, inv, ctx);
    for (const t of optionValues(rest, ['--template'])) templateDir(sub, t.text, ctx);
    // clone's own `-c`/`--config` settings, and the line's `-c` (also handed on to a submodule's clone).
    for (const c of optionValues(rest, ['-c', '--config'])) {
      if (/^init\.templatedir=/i.test(c.text)) templateDir(sub, c.text.slice(c.text.indexOf('=') + 1), ctx);
      if (sub === 'clone') clonedSetting(c, ctx);
    }
  }
  if (sub === 'init' || sub === 'clone' || sub === 'submodule')
    for (const s of inv.settings) if (s.key === 'init.templatedir') templateDir(sub, s.value, ctx);
  gitRuns(inv, ctx);
};

/**
 * `git clone -c KEY=VALUE` writes the setting into the new repository's config, where the person's own git reads it
 * later: judged as that config's content (a program git runs asks), and a key known only at run time asks.
 */
function clonedSetting(c: Word, ctx: CheckContext): void {
  const eq = c.text.indexOf('=');
  const key = eq < 0 ? c.text : c.text.slice(0, eq);
  if (c.dynamic && (eq < 0 || /[$`]/.test(key)))
    return ctx.add('dynamic-command', `git clone -c with a setting known only at run time: ${c.text.slice(0, 80)}`);
  const parts = key.split('.');
  if (parts.length < 2) return;
  const name = parts.pop()!;
  const [section, ...sub] = parts;
  const header = sub.length > 0 ? `[${section} "${sub.join('.')}"]` : `[${section}]`;
  gitContentWrite(
    { ...c, dynamic: false, text: 'config' },
    `${header}\n\t${name} = ${eq < 0 ? 'true' : c.text.slice(eq + 1)}\n`,
    `git clone -c ${c.text.slice(0, 120)}`,
    ctx,
  );
}

/** Options of `git init` and `git clone` that take the next word as their value. */
export const INIT_VALUE_OPTS =
  /^(--template|--separate-git-dir|-b|--branch|--initial-branch|--object-format|--ref-format|-o|--origin|-u|--upload-pack|--reference|--reference-if-able|--depth|--shallow-since|--shallow-exclude|-c|--config|-j|--jobs|--filter|--bundle-uri|--server-option)$/;

/**
 * `git init --bare x`, `git clone --mirror URL x`, `--separate-git-dir D`: a git directory not named `.git`, whose
 * config and hooks later commands of the line may write (git-surfaces.ts).
 */
function madeGitDirectory(sub: string, rest: Word[], inv: GitInvocation, ctx: CheckContext): void {
  const operands: Word[] = [];
  for (let i = 0; i < rest.length; i += 1) {
    if (rest[i]!.text === '--') {
      operands.push(...rest.slice(i + 1));
      break;
    }
    if (INIT_VALUE_OPTS.test(rest[i]!.text)) i += 1;
    else if (!rest[i]!.text.startsWith('-')) operands.push(rest[i]!);
  }
  const bare = rest.some((w) => /^(--bare|--mirror)$/.test(w.text)) || inv.gitDir !== undefined;
  const named = sub === 'init' ? operands[0] : operands[1];
  const source = sub === 'clone' ? operands[0]?.text.replace(/\/+$/, '') : undefined;
  const cloned = source ? `${source.replace(/^.*[/:]/, '').replace(/\.git$/, '')}${bare ? '.git' : ''}` : undefined;
  const dir = named?.text ?? (sub === 'init' ? '.' : cloned);
  const made = [
    ...optionValues(rest, ['--separate-git-dir']).map((w) => w.text),
    ...(inv.gitDir !== undefined && sub === 'init' ? [inv.gitDir] : bare && dir !== undefined ? [dir] : []),
  ];
  for (const d of made) {
    const key = ctx.keyOf(joinKey(inv.dir ?? '.', d));
    if (typeof key === 'string') ctx.gitDirsMade?.add(normalizePath(key));
  }
}
