// What a command leaves behind for later commands to run: exported variables that make programs run code
// (PAGER, GIT_SSH_COMMAND, BASH_ENV, NODE_OPTIONS=--require, HOME, ...), aliases, git configuration that runs
// commands, writes into .git/config. The code runs in a later call, when the files it names may have changed, so it
// is judged now and scripts it runs by path ask. Pure.
import type { Argv } from './argv.js';
import type { SyntaxNode } from './parser.js';
import { named } from './syntax.js';
import { joinWords, literal, wordOf, type Word } from './words.js';
import type { CheckContext } from '../checks/types.js';
import { gitCall } from '../programs/git/call.js';
import { GIT_COMMAND_KEY } from '../programs/git/config.js';
import { isCommandVariable } from './code-in-options.js';
import { keyTable } from './names.js';

/** What the analysis offers beyond a check's context: judging code that runs later (its scripts by path ask). */
export interface CarryContext extends CheckContext {
  later(run: () => void): void;
}

/**
 * Variables that make programs load code or configuration from a file chosen by their value: a start-up script, a
 * home or configuration directory (~/.gitconfig, ~/.bashrc, .npmrc), a git directory or template (hooks).
 */
const START_FILE_VARIABLES =
  /^(ZDOTDIR|HOME|XDG_CONFIG_HOME|GIT_CONFIG|GIT_CONFIG_GLOBAL|GIT_CONFIG_SYSTEM|GIT_CONFIG_PARAMETERS|GIT_CONFIG_COUNT|GIT_CONFIG_KEY_\d+|GIT_CONFIG_VALUE_\d+|GIT_DIR|GIT_COMMON_DIR|GIT_TEMPLATE_DIR|GIT_EXEC_PATH|npm_config_userconfig|npm_config_globalconfig|npm_config_node_options|PERL5OPT|PERL5DB|RUBYOPT|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS)$/i;

/** Variables naming a script a program runs at start: judged like the script (a project file as it is now). */
const SCRIPT_VARIABLES = keyTable<string | null>({ BASH_ENV: null, ENV: null, PYTHONSTARTUP: 'python' });

/** NODE_OPTIONS that load a module before the program; MAKEFLAGS that add make code. */
const OPTION_CODE: Record<string, RegExp> = keyTable({
  NODE_OPTIONS: /(^|\s)(-r|--require|--import|--loader|--experimental-loader)(\s|=|$)/,
  // make takes `--ev=` for `--eval=` (long-options.ts), and `-E` since 4.4.
  'MAKEFLAGS MFLAGS GNUMAKEFLAGS': /--ev|(^|\s)-E/,
});
/** The modules NODE_OPTIONS preloads. */
const PRELOADS = /(?:^|\s)(?:-r|--require|--import|--loader|--experimental-loader)(?:\s+|=)(\S+)/g;

/** Setting this variable can make later programs run code. */
const carries = (name: string): boolean =>
  isCommandVariable(name) ||
  START_FILE_VARIABLES.test(name) ||
  Object.hasOwn(OPTION_CODE, name) ||
  Object.hasOwn(SCRIPT_VARIABLES, name);

/**
 * A variable set outside a command's own prefix (`export X=...`, `declare -x X=...`, `X=...`): exported, it reaches
 * every later command of the task. `value` undefined: exported with a value known only at run time.
 */
export function carriedVariable(name: string, value: Word | undefined, ctx: CarryContext): void {
  if (value === undefined) {
    if (carries(name)) ctx.add('carried-code', `${name} is exported with a value set at run time`);
    return;
  }
  if (value.text === '' && !value.dynamic) return; // unsetting runs nothing
  const script = Object.hasOwn(SCRIPT_VARIABLES, name);
  if (script || isCommandVariable(name)) {
    if (value.dynamic) ctx.computed(value, name);
    else if (script) ctx.later(() => ctx.runsFile(literal(value.text), SCRIPT_VARIABLES[name]!));
    else ctx.later(() => ctx.script(value.text.replace(/^!/, '')));
    return;
  }
  if (name === 'NODE_OPTIONS' && !value.dynamic) {
    for (const m of value.text.matchAll(PRELOADS))
      ctx.later(() => ctx.runsFile(literal(m[1]!.replace(/^["']|["']$/g, '')), 'javascript'));
    return;
  }
  const option = Object.hasOwn(OPTION_CODE, name) ? OPTION_CODE[name] : undefined;
  if (START_FILE_VARIABLES.test(name) || (option && (value.dynamic || option.test(value.text))))
    ctx.add('carried-code', `${name}=${value.text.slice(0, 80)}`);
}

/** The start-file variables git's own configuration reader follows (git/commands.ts): git is judged on those files. */
const GIT_READS =
  /^(HOME|XDG_CONFIG_HOME|GIT_CONFIG_GLOBAL|GIT_CONFIG_SYSTEM|GIT_CONFIG_PARAMETERS|GIT_CONFIG_COUNT|GIT_CONFIG_KEY_\d+|GIT_CONFIG_VALUE_\d+|GIT_DIR|GIT_COMMON_DIR|GIT_EXEC_PATH)$/;

/**
 * `HOME=. npm ci`, `env XDG_CONFIG_HOME=x tool`: a start-file variable set for one command moves where that command
 * loads configuration or code from, as the exported form does for later ones. Asks, like the export, unless the
 * value is the variable's own (`env -i HOME=$HOME`) or the program's files are read by the gate (git).
 */
export function commandStartFiles(
  program: string | null,
  settings: readonly { name: string; value: Word }[],
  ctx: CheckContext,
): void {
  for (const { name, value } of settings) {
    if (!START_FILE_VARIABLES.test(name) || (value.text === '' && !value.dynamic)) continue;
    // The value it has already: `$HOME` (which the analysis may show as `~`).
    if (new RegExp(`^"?\\$(${name}|\\{${name}\\})"?$`).test(value.text) || (name === 'HOME' && value.text === '~'))
      continue;
    if (program === 'git' && GIT_READS.test(name)) continue;
    ctx.add('carried-code', `${name}=${value.text.slice(0, 80)} changes where ${program ?? 'the command'} loads from`);
  }
}

/** bash ≥ 4.4 (`%%`) and older patched bash (`()`) import a function from a variable named this way. */
const IMPORTED_FUNCTION = /^BASH_FUNC_(.+?)(?:%%|\(\))$/s;

/**
 * `env 'BASH_FUNC_ls%%=() { ...; }' bash -c ls`: every bash that inherits the variable defines the function, which
 * replaces the command of that name. Asks (carried-code), and the function's body is judged as commands.
 * False: not such a variable.
 */
export function importedFunction(name: string, value: Word, ctx: CheckContext): boolean {
  const fn = IMPORTED_FUNCTION.exec(name);
  if (!fn) return false;
  ctx.add('carried-code', `${name.slice(0, 60)} defines a bash function replacing ${fn[1]!.slice(0, 40)} in bash`);
  if (value.dynamic) ctx.computed(value, name);
  else ctx.script(value.text.replace(/^\s*\(\)\s*/, ''));
  return true;
}

/** Arguments of `export`/`declare`/`typeset`/`readonly`/`local` that are not plain `NAME=value` assignments. */
export function declarationWord(word: Word, vars: ReadonlyMap<string, string>, ctx: CarryContext): void {
  if (word.text.startsWith('-') && !word.dynamic) return; // a flag
  const m = /^([A-Za-z_][A-Za-z0-9_]*)(\+?=)?(.*)$/s.exec(word.text);
  if (!m) {
    if (word.dynamic) ctx.add('dynamic-command', `declares variables computed at run time: ${word.text.slice(0, 80)}`);
    return;
  }
  const [, name, eq, rest] = m;
  if (eq === undefined) {
    const known = vars.get(name!);
    carriedVariable(name!, known === undefined ? undefined : { ...word, text: known, dynamic: false }, ctx);
  } else carriedVariable(name!, { ...word, text: rest! }, ctx);
}

/** `export NAME`, `export "NAME=value"`, `export $N=...`: what is not a plain assignment (those are walked). */
export function declarationCommand(node: SyntaxNode, vars: ReadonlyMap<string, string>, ctx: CarryContext): void {
  const nameFlag = named(node).some((c) => c.type === 'word' && /^-[a-zA-Z]*n/.test(c.text));
  // `export -n X` takes the export away: nothing is left for later.
  if (nameFlag && node.child(0)?.type === 'export') return;
  // `declare -n r=PAGER; r=...`: later assignments to `r` set the variable it names.
  if (nameFlag)
    for (const a of named(node).filter((c) => c.type === 'variable_assignment')) {
      const target = a.childForFieldName('value')?.text.replace(/^["']|["']$/g, '') ?? '';
      if (carries(target) || target.startsWith('$'))
        ctx.add('carried-code', `${a.text.slice(0, 80)} (a reference to a variable that makes programs run code)`);
    }
  // The grammar splits `PA''GER=x` into `PA` and `''GER=x`; bash reads one word: nodes that touch are joined.
  const groups: SyntaxNode[][] = [];
  for (const child of named(node)) {
    const last = groups.at(-1);
    if (last && last.at(-1)!.endIndex === child.startIndex) last.push(child);
    else groups.push([child]);
  }
  for (const group of groups) {
    if (group.length === 1 && group[0]!.type === 'variable_assignment') continue; // walked as an assignment
    declarationWord(joinWords(group.map((n) => wordOf(n, vars))), vars, ctx);
  }
}

/** git configuration keys whose value git runs later, besides the program keys (config.ts): aliases, includes. */
const GIT_LATER_KEY = /^(core\.hookspath|alias\..+|include\.path|includeif\..+\.path)$/i;

/** `git config KEY VALUE` (also `--global`, `--file F`, `--add`): a command-valued key's value is judged as code run later. */
export function gitConfig(cmd: Argv, ctx: CarryContext): void {
  const written = gitCall(cmd).configWords;
  if (!written) return;
  const { key, value } = written;
  if (key.dynamic)
    return ctx.add('dynamic-command', `git config of a key computed at run time: ${key.text.slice(0, 80)}`);
  if (!GIT_COMMAND_KEY.test(key.text) && !GIT_LATER_KEY.test(key.text)) return;
  // A hooks directory is read when git runs its hooks (git/hooks.ts); one outside the project asks (checks/vcs.ts).
  if (/^core\.hookspath$/i.test(key.text)) return;
  if (/^include(if\..+)?\.path$/i.test(key.text)) ctx.add('carried-code', `git config ${key.text} ${value.text}`);
  else if (value.dynamic) ctx.computed(value, `git config ${key.text}`);
  else ctx.later(() => ctx.script(value.text.replace(/^!/, '')));
}

/** `alias NAME='VALUE'`: the value is a command line that runs where the alias is used. */
export function aliasDefinitions(cmd: Argv, ctx: CarryContext): void {
  for (const a of cmd.args) {
    const eq = a.text.indexOf('=');
    if (eq <= 0) continue;
    if (a.dynamic) ctx.computed({ ...a, text: a.text.slice(eq + 1) }, `alias ${a.text.slice(0, eq)}`);
    else ctx.script(a.text.slice(eq + 1));
  }
}

/** Files whose content git or a shell runs by itself: writing them is installing code that runs later. */
const RUNS_LATER = /(^|\/)\.git\/(config|hooks\/[^/]+)$/;
/** Files Python runs at every start (a .pth file's `import` lines, sitecustomize): nothing reads them before. */
const PYTHON_START = /\.pth$|(^|\/)(sitecustomize|usercustomize)\.py$/;

export function codeFileWrite(path: Word, ctx: CarryContext): void {
  if (path.dynamic) return;
  if (RUNS_LATER.test(path.text)) ctx.add('carried-code', `writes ${path.text}, which git reads for commands to run`);
  if (PYTHON_START.test(path.text)) ctx.add('carried-code', `writes ${path.text}, which Python runs at every start`);
}
