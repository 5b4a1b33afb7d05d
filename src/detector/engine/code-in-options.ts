// Commands that run other code given in their options, configuration or input: git -c core.pager=CMD,
// GIT_SSH_COMMAND=CMD, ssh -o ProxyCommand=CMD, rsync -e CMD, tar --to-command=CMD, make -f FILE, crontab fed
// entries. The code is judged like any command line; code computed at run time asks. Pure.
import { parseFlags, type Argv } from './argv.js';
import { STDIN_PATHS, stdinIsDynamic, stdinText, type CheckContext, type Io } from '../checks/types.js';
import { MAKE_VALUE_FLAGS, readMakefile } from '../programs/build/makefile.js';
import { makeLanguage } from '../programs/build/task-runners.js';
import { optionValues, optionWord } from './long-options.js';
import { literal, type Word } from './words.js';
import { keyTable, names } from './names.js';
import { GIT_COMMAND_KEY } from '../programs/git/config.js';

/** Environment variables whose value is a command line a program runs (pager, editor, ssh, askpass, browser). */
const COMMAND_VARIABLES = new Set(
  names(`
  GIT_SSH_COMMAND GIT_SSH GIT_PAGER PAGER GIT_EDITOR EDITOR VISUAL GIT_EXTERNAL_DIFF GIT_ASKPASS SSH_ASKPASS LESSOPEN
  LESSCLOSE PROMPT_COMMAND GIT_PROXY_COMMAND RSYNC_RSH MANPAGER SYSTEMD_PAGER SYSTEMD_EDITOR GIT_SEQUENCE_EDITOR
  KUBE_EDITOR FCEDIT SUDO_ASKPASS SUDO_EDITOR BROWSER
`),
);

/** Variables whose value is a command line a program runs (`GIT_SSH_COMMAND='...' git fetch`; npm's are any case). */
export const isCommandVariable = (name: string): boolean =>
  COMMAND_VARIABLES.has(name) || /^npm_config_(script_shell|shell|editor|browser|git)$/i.test(name);
/** Variables that name a script the shell runs at start. */
const SCRIPT_VARIABLES = new Set(['BASH_ENV', 'ENV']);

/**
 * A command value that hides code: a shell or interpreter given inline code, a network tool, a program in a
 * directory anyone can write to. As a pager, editor or ssh command it runs later, unseen, so it asks even when the
 * code itself looks harmless (`core.pager='sh -c "id > /tmp/o"'`).
 */
const HIDES_CODE =
  /(^|[\s;|&(!'"])(sh|bash|zsh|dash|ksh|python[\d.]*|perl|ruby|node|php)\s+-[a-zA-Z]*[ce]\b|(^|[\s;|&(!'"])(curl|wget|nc|ncat|netcat|socat|telnet)\s|(^|[;|&!]\s*)(\/tmp|\/var\/tmp|\/dev\/shm)\//;
export const hidesCode = (text: string): boolean => HIDES_CODE.test(text);

/** Judges a command line given as an option value; computed at run time, it asks. */
function commandValue(value: Word, who: string, ctx: CheckContext): void {
  if (value.dynamic) ctx.computed(value, who);
  else if (value.text.trim() !== '') ctx.script(value.text.replace(/^!/, ''));
  if (!value.dynamic && who.startsWith('git') && hidesCode(value.text)) ctx.add('git-hook', `${who}=${value.text}`);
}

function gitOptions(cmd: Argv, ctx: CheckContext): void {
  for (let i = 0; i < cmd.args.length; i += 1) {
    const t = cmd.args[i]!.text;
    if (!t.startsWith('-')) break; // the subcommand: what follows is its own
    const setting =
      t === '-c' ? cmd.args[(i += 1)] : t.startsWith('-c') ? { ...cmd.args[i]!, text: t.slice(2) } : undefined;
    if (!setting) continue;
    const eq = setting.text.indexOf('=');
    if (eq > 0 && (GIT_COMMAND_KEY.test(setting.text.slice(0, eq)) || /^alias\./i.test(setting.text.slice(0, eq))))
      commandValue({ ...setting, text: setting.text.slice(eq + 1) }, `git -c ${setting.text.slice(0, eq)}`, ctx);
    // The ext:: transport runs its URL as a command; allowing it lets a URL run anything.
    if (/^protocol\.(ext\.)?allow=(always|user)$/i.test(setting.text)) ctx.add('git-hook', `git -c ${setting.text}`);
  }
  const ext = cmd.args.find((a) => /^ext::/.test(a.text));
  if (ext) ctx.add('git-hook', `git ... ${ext.text} (the ext:: transport runs a command)`);
}

/** The commands of crontab entries: what follows five time fields or an @keyword. */
export function crontabCommands(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#') && !/^[A-Za-z_][A-Za-z0-9_]*\s*=/.test(l))
    .map((l) => (l.startsWith('@') ? l.replace(/^@\S+\s+/, '') : l.split(/\s+/).slice(5).join(' ')));
}

const count = (text: string, c: string): number => text.split(c).length - 1;

/** Variables make reads its own options from, before its command line (`MAKEFLAGS='--eval=...' make`). */
const MAKE_OPTION_VARIABLES = ['GNUMAKEFLAGS', 'MAKEFLAGS', 'MFLAGS'];

function make(cmd: Argv, ctx: CheckContext): void {
  const words = [...MAKE_OPTION_VARIABLES.flatMap((v) => optionVariable(v, ctx)), ...cmd.args];
  const f = parseFlags(words, MAKE_VALUE_FLAGS);
  // make takes abbreviations (`--ev=`, `--fi FILE`) as getopt_long does.
  for (const evaluated of optionValues(words, ['--eval', '-E']))
    if (evaluated.dynamic) ctx.computed(evaluated, 'make --eval');
    else if (count(evaluated.text, '(') !== count(evaluated.text, ')'))
      ctx.add('unread-script', `make --eval ${evaluated.text.slice(0, 60)}: make code the gate cannot read whole`);
    else for (const c of readMakefile(evaluated.text.replace(/\\t/g, '\t')).commands) ctx.script(c);
  // Every -f makefile on disk is read (standard input and `<(...)`: exec.ts), with -C from that directory.
  const dir = f.values.get('-C') ?? f.values.get('--directory');
  for (const word of optionValues(words, ['-f', '--file', '--makefile']))
    if (!ctx.substitutionInput(word) && word.text !== '-' && !STDIN_PATHS.test(word.text))
      ctx.runsFile(
        dir === undefined || word.text.startsWith('/') ? word : { ...word, text: `${dir}/${word.text}` },
        makeLanguage(cmd, ctx, dir),
      );
}

function crontab(cmd: Argv, io: Io, ctx: CheckContext): void {
  const f = parseFlags(cmd.args, ['-u']);
  if (f.short.has('l') || f.short.has('r') || f.short.has('e')) return;
  const file = f.operands[0];
  if (file && file.text !== '-') return ctx.runsFile(file, 'crontab');
  const text = stdinText(io) ?? ctx.knownText(io);
  if (text !== undefined) for (const c of crontabCommands(text)) ctx.script(c);
  else if (stdinIsDynamic(io) || io.upstream.length > 0)
    ctx.add('dynamic-command', 'crontab installs entries computed at run time');
}

/** Options whose value is a command, per program; `abbreviate`: it takes `--to-com` for `--to-command`. */
const COMMAND_OPTIONS = keyTable<{ opts: readonly string[]; ssh?: boolean; abbreviate?: boolean; own?: string[] }>({
  ssh: { opts: ['-o'], ssh: true },
  'scp sftp': { opts: ['-o', '-S'], ssh: true },
  rsync: { opts: ['-e', '--rsh', '--rsync-path'] },
  tar: {
    abbreviate: true,
    own: ['--checkpoint'],
    opts: names(`--to-command --use-compress-program -I --checkpoint-action --info-script -F --new-volume-script`),
  },
});

function commandOptions(cmd: Argv, ctx: CheckContext, words: readonly Word[] = cmd.args): void {
  const spec = COMMAND_OPTIONS[cmd.name!]!;
  words.forEach((a, i) => {
    // An option of the program's own whose full name starts another's (`--checkpoint`) is itself, not an abbreviation.
    if (spec.own?.includes(a.text.replace(/=.*$/s, ''))) return;
    for (const opt of spec.opts) {
      const m = optionWord(a.text, opt, spec.abbreviate ?? false);
      const value: Word | undefined = !m ? undefined : 'attached' in m ? { ...a, text: m.attached } : words[i + 1];
      if (!value) continue;
      if (spec.ssh && opt === '-o') {
        const m = /^(ProxyCommand|LocalCommand|KnownHostsCommand)[\s=]+(.*)$/is.exec(value.text);
        if (m) commandValue({ ...value, text: m[2]! }, `${cmd.name} -o ${m[1]}`, ctx);
      } else if (opt === '--checkpoint-action') {
        const m = /^exec=(.*)$/s.exec(value.text);
        if (m) commandValue({ ...value, text: m[1]! }, 'tar --checkpoint-action', ctx);
      } else commandValue(value, `${cmd.name} ${opt}`, ctx);
    }
  });
}

/**
 * The words of a variable a program prepends to its own arguments (TAR_OPTIONS), split as the program splits them:
 * blanks separate words, quotes and backslashes escape. Known only at run time, it is judged as a command computed
 * then.
 */
export function optionVariable(name: string, ctx: CheckContext): Word[] {
  const v = ctx.commandEnv.get(name);
  if (!v || v.text.trim() === '') return [];
  if (v.dynamic) {
    ctx.computed(v, name);
    return [];
  }
  const words: string[] = [];
  let cur: string | undefined;
  let quote = '';
  for (let i = 0; i < v.text.length; i += 1) {
    const c = v.text[i]!;
    if (quote) {
      if (c === quote) quote = '';
      else if (c === '\\' && quote === '"' && i + 1 < v.text.length) cur += v.text[(i += 1)]!;
      else cur += c;
    } else if (/\s/.test(c)) {
      if (cur !== undefined) words.push(cur);
      cur = undefined;
    } else if (c === "'" || c === '"') {
      quote = c;
      cur ??= '';
    } else if (c === '\\' && i + 1 < v.text.length) cur = (cur ?? '') + v.text[(i += 1)]!;
    else cur = (cur ?? '') + c;
  }
  if (cur !== undefined) words.push(cur);
  return words.map(literal);
}

/** Finds code that `cmd` runs from its options, its variables (`assignments`) or its input, and judges it. */
export function indirectCode(
  cmd: Argv,
  assignments: readonly { name: string; value: Word }[],
  io: Io,
  ctx: CheckContext,
): void {
  for (const { name, value } of assignments) {
    if (isCommandVariable(name)) commandValue(value, name, ctx);
    if (SCRIPT_VARIABLES.has(name) && value.text !== '') {
      if (value.dynamic) ctx.computed(value, name);
      else ctx.runsFile(literal(value.text), null);
    }
  }
  if (cmd.name === 'git') gitOptions(cmd, ctx);
  else if (cmd.name === 'make' || cmd.name === 'gmake') make(cmd, ctx);
  else if (cmd.name === 'crontab') crontab(cmd, io, ctx);
  else if (cmd.name === 'tar') commandOptions(cmd, ctx, [...optionVariable('TAR_OPTIONS', ctx), ...cmd.args]);
  else if (cmd.name !== null && Object.hasOwn(COMMAND_OPTIONS, cmd.name)) commandOptions(cmd, ctx);
}
