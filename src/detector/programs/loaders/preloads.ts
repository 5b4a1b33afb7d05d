// Code an interpreter loads before (or instead of) its program, from its options and variables: `node -r ./x.js`,
// `--import`, NODE_OPTIONS; `ruby -I lib -r x`, RUBYOPT; `perl -I. -MEvil`, PERL5OPT/PERL5LIB; `php -d
// auto_prepend_file=x.php`; `lua -l mod`, LUA_INIT; `python -m pkg`, PYTHONPATH, PYTHONSTARTUP. Files of the project
// are read and judged like the program; installed packages are not read. Pure.
import type { Argv } from '../../engine/argv.js';
import type { CheckContext, Origin } from '../../checks/types.js';
import type { Word } from '../../engine/words.js';
import { literal } from '../../engine/words.js';
import { optionValues } from '../../engine/long-options.js';
import { cwdKey, loadJavascript, pythonCandidates } from './program-loads.js';
import { joinKey } from './run-file.js';
import { names } from '../../engine/names.js';

export { optionValues };

/** Words of a variable's value (`NODE_OPTIONS='--require ./x.js'`), as the program splits it. */
function variableWords(ctx: CheckContext, name: string): Word[] | undefined {
  const v = ctx.commandEnv.get(name);
  if (!v) return undefined;
  if (v.dynamic) {
    ctx.add('dynamic-command', `${name} is set to a value known only at run time`);
    return [];
  }
  return v.text.split(/\s+/).filter(Boolean).map(literal);
}

/** The values of `opts` on the command line, then in the words of the interpreter's option variable (full names). */
function givenAndSet(cmd: Argv, env: readonly Word[], opts: readonly string[]): Word[] {
  return [...optionValues(cmd.args, opts, false), ...optionValues(env, opts, false)];
}

function keys(ctx: CheckContext, dirs: readonly Word[]): string[] {
  return dirs.flatMap((d) => {
    if (d.dynamic) {
      ctx.add('dynamic-command', `a library directory known only at run time: ${d.text.slice(0, 60)}`);
      return [];
    }
    const key = ctx.keyOf(d.text);
    return typeof key === 'string' ? [key] : [];
  });
}

/** `-I` directories of the command line and the option variable, then those of the path variable (RUBYLIB). */
function libraryDirs(ctx: CheckContext, cmd: Argv, env: readonly Word[], lib: Word | undefined): string[] {
  const path = lib && !lib.dynamic ? lib.text.split(':').map(literal) : [];
  return keys(ctx, [...givenAndSet(cmd, env, ['-I']), ...path]);
}

/** Modules node preloads: paths of the project or `data:` URLs (bare names are installed packages). */
function node(cmd: Argv, ctx: CheckContext): void {
  const opts = ['-r', '--require', '--import', '--loader', '--experimental-loader'];
  for (const spec of givenAndSet(cmd, variableWords(ctx, 'NODE_OPTIONS') ?? [], opts))
    if (spec.dynamic) ctx.add('dynamic-command', `node preloads a module named at run time: ${spec.text.slice(0, 60)}`);
    else loadJavascript(spec.text, undefined, ctx);
}

function ruby(cmd: Argv, ctx: CheckContext): Origin {
  const env = variableWords(ctx, 'RUBYOPT') ?? [];
  const dirs = libraryDirs(ctx, cmd, env, ctx.commandEnv.get('RUBYLIB'));
  for (const r of givenAndSet(cmd, env, ['-r']))
    if (r.dynamic) ctx.add('dynamic-command', `ruby requires a library named at run time: ${r.text}`);
    else {
      const file = /\.(rb|so)$/.test(r.text) ? r.text : `${r.text}.rb`;
      // A path is found from the working directory; a name, in the library directories.
      const here = cwdKey(ctx);
      const bases = /^(\.{1,2}\/|\/)/.test(r.text) ? (here === undefined ? [] : [here]) : dirs;
      for (const key of bases.map((d) => joinKey(d, file))) ctx.loads(key, 'ruby', { file: key, roots: dirs });
    }
  return { roots: dirs };
}

function perl(cmd: Argv, ctx: CheckContext): Origin {
  const env = variableWords(ctx, 'PERL5OPT') ?? [];
  const dirs = libraryDirs(ctx, cmd, env, ctx.commandEnv.get('PERL5LIB') ?? ctx.commandEnv.get('PERLLIB'));
  for (const m of givenAndSet(cmd, env, ['-M', '-m'])) {
    const name = m.text.replace(/^-/, '').replace(/[=\s].*$/s, '');
    if (m.dynamic) ctx.add('dynamic-command', `perl loads a module named at run time: ${m.text}`);
    else if (/^[\w:]+$/.test(name))
      for (const d of dirs) {
        const key = joinKey(d, `${name.replace(/::/g, '/')}.pm`);
        ctx.loads(key, 'perl', { file: key, roots: dirs });
      }
  }
  return { roots: dirs };
}

/** php's options whose value is code run for each input line (or before or after them). */
const PHP_CODE_OPTIONS = names('-B -R -E --process-begin --process-code --process-end');

function php(cmd: Argv, ctx: CheckContext): void {
  for (const file of optionValues(cmd.args, ['-f', '-F', '--file'], false)) ctx.runsFile(file, 'php');
  for (const code of optionValues(cmd.args, PHP_CODE_OPTIONS, false))
    if (code.dynamic) ctx.computed(code, 'php');
    else ctx.code(code.text, 'php');
  for (const d of optionValues(cmd.args, ['-d', '--define'], false)) {
    const m = /^\s*(auto_prepend_file|auto_append_file)\s*=\s*(.*)$/.exec(d.text);
    if (m && m[2] !== '' && m[2] !== 'none') ctx.runsFile({ ...d, text: m[2]!.replace(/^["']|["']$/g, '') }, 'php');
  }
}

function lua(cmd: Argv, ctx: CheckContext): void {
  const here = cwdKey(ctx);
  for (const l of optionValues(cmd.args, ['-l'], false)) {
    const mod = l.text.replace(/^\w+=/, '').replace(/\./g, '/');
    if (l.dynamic) ctx.add('dynamic-command', `lua loads a module named at run time: ${l.text}`);
    else if (here !== undefined)
      for (const key of [`${mod}.lua`, `${mod}/init.lua`].map((p) => joinKey(here, p)))
        ctx.loads(key, 'lua', { file: key, roots: [] });
  }
  // Lua 5.4 runs LUA_INIT_5_4 and 5.3 LUA_INIT_5_3 in place of LUA_INIT: which one runs depends on the version.
  for (const name of ['LUA_INIT', 'LUA_INIT_5_4', 'LUA_INIT_5_3']) {
    const init = ctx.commandEnv.get(name);
    if (init?.dynamic) ctx.add('dynamic-command', `${name} is set to a value known only at run time`);
    else if (init?.text.startsWith('@')) ctx.runsFile(literal(init.text.slice(1)), 'lua');
    else if (init && init.text !== '') ctx.code(init.text, 'lua');
  }
}

/** PYTHONPATH entries, then the working directory: where Python finds modules for code given inline or with -m. */
function python(cmd: Argv, ctx: CheckContext, inline: boolean): Origin {
  const path = ctx.commandEnv.get('PYTHONPATH');
  if (path?.dynamic) ctx.add('dynamic-command', 'PYTHONPATH is set to a value known only at run time');
  const extra = path && !path.dynamic ? keys(ctx, path.text.split(':').filter(Boolean).map(literal)) : [];
  const here = cwdKey(ctx);
  const roots = inline && here !== undefined ? [here, ...extra] : extra;
  // -m MODULE: the module (or package's __main__) found on the path, judged like a script.
  const m = cmd.args.findIndex((a) => a.text === '-m');
  const module = m >= 0 ? cmd.args[m + 1] : undefined;
  if (module && !module.dynamic && /^[\w.]+$/.test(module.text)) {
    const dotted = module.text;
    for (const root of roots)
      for (const key of [...pythonCandidates(root, dotted), joinKey(root, `${dotted.replace(/\./g, '/')}/__main__.py`)])
        ctx.loads(key, 'python', { file: key, roots });
  }
  // PYTHONSTARTUP runs before an interactive session.
  const startup = ctx.commandEnv.get('PYTHONSTARTUP');
  if (startup && inline && !cmd.args.some((a) => a.text === '-c' || a.text === '-m')) ctx.runsFile(startup, 'python');
  return { roots };
}

/**
 * What an interpreter loads from its options and variables; returns the origin its program's own imports are
 * resolved with (library directories), or undefined when that is the language's default.
 */
export function interpreterLoads(cmd: Argv, language: string, ctx: CheckContext, inline: boolean): Origin | undefined {
  if (language === 'javascript') node(cmd, ctx);
  else if (language === 'ruby') return ruby(cmd, ctx);
  else if (language === 'perl') return perl(cmd, ctx);
  else if (language === 'php') php(cmd, ctx);
  else if (language === 'lua') lua(cmd, ctx);
  else if (language === 'python') return python(cmd, ctx, inline);
  return undefined;
}
