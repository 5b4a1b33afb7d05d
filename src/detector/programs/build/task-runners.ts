// Task runners that run the project's own command lines: `npm test`/`npm run x` (package.json scripts and their
// pre/post scripts, with .npmrc's script-shell), yarn, pnpm and bun scripts, and `make` (its makefile's recipes, with
// make variables expanded). The gate reads those files like scripts run by path. Pure.
import { normalizePath } from '../../../common/paths.js';
import { parseFlags, type Argv } from '../../engine/argv.js';
import type { CheckContext } from '../../checks/types.js';
import { judgeCmake } from './cmake.js';
import { MAKE_VALUE_FLAGS, readMakefile } from './makefile.js';
import { literal } from '../../engine/words.js';
import { names } from '../../engine/names.js';

const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall', 'prepublish', 'preprepare', 'prepare', 'postprepare'];
const PUBLISH_SCRIPTS = ['prepack', 'prepare', 'postpack', 'prepublishOnly', 'publish', 'postpublish'];
const withPrePost = (name: string): string[] => [`pre${name}`, name, `post${name}`];

/** npm's own commands that run package.json scripts, by alias. */
function npmScripts(sub: string, rest: string[]): string[] {
  if (/^(test|tst|t|start|stop|restart)$/.test(sub)) return withPrePost(sub.startsWith('t') ? 'test' : sub);
  if (/^(run|run-script|rum|urn)$/.test(sub)) return rest[0] ? withPrePost(rest[0]) : [];
  if (/^(i|in|ins|inst|insta|instal|install|isnt|isntall|add|ci|clean-install|install-clean|ic|rebuild|rb)$/.test(sub))
    return INSTALL_SCRIPTS;
  if (/^(it|install-test|cit|install-ci-test|clean-install-test|sit)$/.test(sub))
    return [...INSTALL_SCRIPTS, ...withPrePost('test')];
  if (/^(pack|publish)$/.test(sub)) return PUBLISH_SCRIPTS;
  if (sub === 'version') return withPrePost('version');
  return [];
}

/** yarn and pnpm commands that are theirs, not a script's name (`yarn build` runs the script build). */
const YARN_BUILTINS = new Set(
  names(`add audit bin cache config constraints create dedupe dlx exec explain help import info init link list login
    logout ls node npm outdated pack patch plugin publish remove search set unlink up update upgrade version why
    workspace workspaces global store env fetch prune licenses`),
);

function yarnLikeScripts(sub: string | undefined, rest: string[]): string[] {
  if (sub === undefined || /^(install|i|rebuild)$/.test(sub)) return INSTALL_SCRIPTS;
  if (sub === 'run' || sub === 'run-script') return rest[0] ? withPrePost(rest[0]) : [];
  if (YARN_BUILTINS.has(sub)) return [];
  return withPrePost(sub);
}

const VALUE_FLAGS = ['--prefix', '-C', '--dir', '--cwd', '-w', '--workspace', '--filter', '-F', '--loglevel'];

/** How a makefile is read: make's command-line variables, what it starts with (CURDIR, the environment), its -C. */
interface MakeReading {
  overrides: [string, string][];
  known: [string, string][];
  dir: string;
}

/**
 * `make` with its command-line variables (`make CC='...' SHELL=./x.sh`), which override the makefile's, the variables
 * it starts with (CURDIR, the command's environment) and its -C directory (includes are read from there): carried in
 * the language name to the makefile's reading. MAKEFILES (extra makefiles) and a SHELL that is a script are read too.
 */
export function makeLanguage(cmd: Argv, ctx: CheckContext, dir = ''): string {
  const overrides = cmd.args.flatMap((a) => {
    const m = /^([A-Za-z_.][\w.]*)=(.*)$/s.exec(a.text);
    if (!m) return [];
    if (a.dynamic) ctx.add('dynamic-command', `make variable set at run time: ${a.text.slice(0, 80)}`);
    return [[m[1]!, m[2]!] as [string, string]];
  });
  for (const [k, v] of overrides) if (k === 'SHELL' && v.includes('/')) ctx.runsFile(literal(v), null);
  const extra = ctx.commandEnv.get('MAKEFILES');
  if (extra?.dynamic) ctx.add('dynamic-command', 'MAKEFILES set at run time');
  else if (extra) for (const f of extra.text.split(/\s+/).filter(Boolean)) ctx.runsFile(literal(f), 'make');
  // Environment variables are make variables too; one computed at run time stays unknown (a shell variable).
  const known: [string, string][] = [...ctx.commandEnv]
    .filter(([k, w]) => !w.dynamic && /^[A-Za-z_][\w]*$/.test(k) && k !== 'SHELL' && k !== 'MAKEFILES')
    .map(([k, w]) => [k, w.text]);
  const cwd = ctx.where.cwd;
  if (dir.startsWith('/')) known.push(['CURDIR', normalizePath(dir)]);
  else if (cwd) known.push(['CURDIR', normalizePath(dir ? `${cwd}/${dir}` : cwd)]);
  const name = makeDryRun(cmd) ? 'make-n' : 'make';
  return `${name}\u0000${JSON.stringify({ overrides, known, dir } satisfies MakeReading)}`;
}

/** make -n/--dry-run/--just-print/--recon, -q/--question, -t/--touch: no recipe runs but `+` lines and $(MAKE). */
const makeDryRun = (cmd: Argv): boolean =>
  cmd.args.some((a) =>
    /^(-[bBdeikLnpqrRsStvw]*[nqt][bBdeikLnpqrRsStvw]*|--dry-run|--just-print|--recon|--question|--touch)$/.test(a.text),
  );

/** Judges what a task runner will run: the package.json scripts or makefile recipes it picks, read in the environment. */
export function taskRunner(cmd: Argv, ctx: CheckContext): void {
  const name = cmd.name;
  if (name === 'make' || name === 'gmake') {
    const f = parseFlags(cmd.args, MAKE_VALUE_FLAGS);
    if (f.values.has('-f') || f.values.has('--file') || f.values.has('--makefile')) return; // read as make -f FILE
    // -n prints the recipes, -q only answers whether targets are up to date: neither runs them, but make still reads
    // the makefile, running its `$(shell ...)` calls (read as 'make-n').
    const dir = f.values.get('-C') ?? f.values.get('--directory');
    const files = ['GNUmakefile', 'makefile', 'Makefile'].map((file) => (dir ? `${dir}/${file}` : file));
    for (const file of files) ctx.runsFile(literal(file), makeLanguage(cmd, ctx, dir), files);
    return;
  }
  if (name !== 'npm' && name !== 'yarn' && name !== 'pnpm' && name !== 'bun') return;
  const f = parseFlags(cmd.args, VALUE_FLAGS);
  const [sub, ...rest] = f.operands.map((o) => o.text);
  let scripts: string[];
  if (name === 'npm') scripts = sub ? npmScripts(sub, rest) : [];
  // bun run FILE runs a file, not a script.
  else if (name === 'bun' && sub === 'run') scripts = rest[0] && !/[./]/.test(rest[0]) ? withPrePost(rest[0]) : [];
  else if (name === 'bun') scripts = sub === 'install' || sub === 'i' ? INSTALL_SCRIPTS : [];
  else scripts = yarnLikeScripts(sub, rest);
  if (scripts.length === 0) return;
  const prefix = f.values.get('--prefix') ?? f.values.get('-C') ?? f.values.get('--dir') ?? f.values.get('--cwd');
  const at = (file: string): ReturnType<typeof literal> => literal(prefix ? `${prefix}/${file}` : file);
  ctx.runsFile(at('package.json'), `package-scripts:${scripts.join(',')}`, [at('package.json').text]);
  // Settings given on the command line: the program that runs the scripts, code node preloads, other config files.
  for (let i = 0; i < cmd.args.length; i += 1) {
    const t = cmd.args[i]!.text;
    const m = /^--(script-shell|shell|node-options|userconfig|globalconfig|onload-script)(?:=(.*))?$/s.exec(t);
    if (!m) continue;
    const value = m[2] ?? cmd.args[(i += 1)]?.text ?? '';
    if (m[1] === 'script-shell' || m[1] === 'shell') {
      if (value.includes('/')) ctx.runsFile(literal(value), null);
      else if (!/^(ba|da|z|k)?sh$/.test(value))
        ctx.add('carried-code', `${t} ${value}: another program runs the scripts`);
    } else if (m[1] === 'node-options') {
      if (/(^|\s)(-r|--require|--import|--loader|--experimental-loader)\b/.test(value))
        ctx.add('carried-code', `--node-options ${value.slice(0, 60)}`);
    } else ctx.add('carried-code', `${t}: npm reads its settings from another file`);
  }
  // Settings that decide which program runs the scripts, or load code into every node the runner starts.
  for (const rc of name === 'yarn' ? ['.npmrc', '.yarnrc.yml', '.yarnrc'] : ['.npmrc'])
    ctx.runsFile(at(rc), 'runner-config', true);
}

/** package.json scripts by name: each is a shell command line. Unparsable JSON runs nothing (the runner fails). */
export function packageScripts(text: string, wanted: string[]): string[] {
  let scripts: unknown;
  try {
    scripts = (JSON.parse(text) as { scripts?: unknown }).scripts;
  } catch {
    return [];
  }
  const table = (typeof scripts === 'object' && scripts !== null ? scripts : {}) as Record<string, unknown>;
  const out = wanted.flatMap((n) => (Object.hasOwn(table, n) && typeof table[n] === 'string' ? [table[n]] : []));
  // Without a start script, `npm start` runs `node server.js`.
  if (wanted.includes('start') && !Object.hasOwn(table, 'start')) out.push('node server.js');
  return out;
}

/** .npmrc / .yarnrc keys that choose the program running scripts or load code: what they name runs, unseen. */
const RUNNER_CODE_KEYS =
  /^\s*["']?(script-shell|shell|node-options|onload-script|git|editor|browser|yarnPath|yarn-path|plugins|init-module|globalconfig|userconfig)["']?\s*[:=]/im;

/** Files task runners read: a makefile's recipes, package.json scripts, a runner's settings. False: not one of them. */
export function runnerFile(key: string, text: string, language: string, ctx: CheckContext): boolean {
  const make = /^make(-n)?(?:\u0000([\s\S]*))?$/.exec(language);
  if (make) {
    const reading: MakeReading =
      make[2] === undefined ? { overrides: [], known: [], dir: '' } : (JSON.parse(make[2]) as MakeReading);
    const m = readMakefile(text, new Map(reading.overrides), make[1] !== undefined, new Map(reading.known));
    for (const p of m.problems) ctx.add('unread-script', `${key}: ${p}`);
    // make reads an include relative to the directory it runs in (-C), whichever makefile names it.
    const at = (inc: string): string =>
      inc.startsWith('/') || reading.dir === '' ? inc : normalizePath(`${reading.dir}/${inc}`);
    for (const inc of m.includes) ctx.runsFile(literal(at(inc)), language, true);
    for (const c of m.commands) ctx.script(c);
  } else if (language.startsWith('package-scripts:'))
    for (const c of packageScripts(text, language.slice('package-scripts:'.length).split(','))) ctx.script(c);
  else if (language === 'cmake' || language === 'cmake-project') judgeCmake(key, text, language === 'cmake', ctx);
  else if (language === 'python-doctest') {
    // The examples of a doctest file: `>>>` lines and their `...` continuations are Python, run in order.
    const code = text
      .split('\n')
      .map((l) => /^\s*(?:>>>|\.\.\.)(?: (.*))?$/.exec(l)?.[1])
      .filter((l): l is string => l !== undefined);
    if (code.length > 0) ctx.code(code.join('\n'), 'python');
  } else if (language === 'runner-config') {
    const setting = RUNNER_CODE_KEYS.exec(text)?.[1];
    if (setting) ctx.add('carried-code', `${key} sets ${setting}, which decides what runs the project's scripts`);
  } else return false;
  return true;
}
