// Programs that run shell commands given as editor or debugger commands: vim/ex `-c ':!CMD'` (and `:call system()`,
// `:py3`, `:source FILE`, `-S FILE`, `-s` keystroke scripts, ex scripts on standard input), GNU sed's `e` command and
// `s///e` flag (inline, `-f FILE`, `w FILE` writes), gdb/lldb commands (`-ex`, `-x FILE`, `shell`, `platform shell`,
// `script`), zip's `-TT CMD`. The command is judged like any command line; a shell started from them is an
// interactive shell. Pure.
import { literal, type Word } from '../engine/words.js';
import { checkWrite } from './files.js';
import { show, stdinIsDynamic, type Check, type CheckContext, type Io } from './types.js';
import { judges } from './registry.js';
import type { SedCheck } from '../programs/sed/call.js';

/** Single- or double-quoted vim strings joined with `.`/`..`: their text, or undefined when anything else is there. */
function vimString(expr: string): string | undefined {
  const parts = expr.trim().split(/\s*\.\.?\s*(?=["'])/);
  const strings = parts.map((p) => /^(["'])((?:\\.|(?!\1)[^\\])*)\1$/s.exec(p.trim()));
  if (!strings.every((m) => m !== null)) return undefined;
  return strings.map((m) => (m[1] === '"' ? m[2]!.replace(/\\(.)/g, '$1') : m[2]!.replace(/''/g, "'"))).join('');
}

/** The editor's buffer as a filter's standard input: the file it edits, else text unknown here. */
const bufferInput = (file: Word | undefined): Io =>
  file ? { upstream: [], stdinFile: file } : { upstream: [{ argv: null, dynamic: true }] };

/**
 * An ex command (`:!rm -rf x`, `silent !cmd`, `call system("cmd")`, `py3 import os; ...`, `so x.vim`): what it runs.
 * `{range}!filter` and `w !cmd` feed the buffer (`file`, the file edited) to the command: `%!sh` runs the file.
 */
export function exCommand(raw: string, ctx: CheckContext, detail: string, file?: Word, depth = 0): void {
  const c = raw.replace(/^[:\s]+/, '').replace(/^(silent!?|sil!?|keepalt|noautocmd|noa)\s+/, '');
  const exe = /^exe(?:c(?:ute)?)?\s+(.*)$/s.exec(c);
  if (exe) {
    const text = vimString(exe[1]!);
    if (text === undefined) ctx.add('dynamic-command', `${detail} (:execute of a command built at run time)`);
    else if (depth < 8) exCommand(text, ctx, detail, file, depth + 1);
    return;
  }
  const bang = /^([\d,.$%'<>]*)\s*(r(?:ead)?\s*|w(?:rite)?!?\s*)?!(.*)$/s.exec(c);
  if (bang) {
    const fed = bang[1] !== '' ? bang[2] === undefined : bang[2]?.startsWith('w') === true;
    ctx.script(bang[3]!, fed ? bufferInput(file) : undefined);
    return;
  }
  if (/^(sh(ell)?|term(inal)?)\b/.test(c)) return ctx.add('dynamic-command', `${detail} (an interactive shell)`);
  // Keystrokes run as typed: `normal !!cmd` filters lines through a command.
  if (/^norm(al)?!?\s/.test(c) && /[!:]/.test(c.slice(c.indexOf(' '))))
    ctx.add('dynamic-command', `${detail} (:normal keystrokes that run commands)`);
  const make = /^(make|lmake|grep|lgrep)\b(.*)$/s.exec(c);
  if (make) ctx.script(`${make[1]!.replace(/^l/, '')}${make[2]}`);
  const sourced = /^(so(?:urce)?|runtime|luafile|py3?file|pyxfile|rubyfile|perlfile)!?\s+(\S+)/.exec(c);
  if (sourced) {
    const language: Record<string, string> = { luafile: 'lua', rubyfile: 'ruby', perlfile: 'perl' };
    const lang = /^py/.test(sourced[1]!) ? 'python' : (language[sourced[1]!] ?? 'vim');
    if (sourced[1] === 'runtime') ctx.add('dynamic-command', `${detail} (:runtime loads scripts found at run time)`);
    else ctx.runsFile(literal(sourced[2]!.replace(/^~(?=\/)/, '~')), lang);
  }
  for (const m of c.matchAll(/\b(?:system|systemlist|jobstart|termopen|libcall|libcallnr)\s*\(/g)) {
    const lit = /^\s*(["'])((?:\\.|(?!\1)[^\\])*)\1\s*[,)]/s.exec(c.slice(m.index + m[0].length));
    if (lit && /^(system|systemlist|jobstart|termopen)/.test(m[0])) ctx.script(lit[2]!);
    else ctx.add('dynamic-command', `${detail} (${m[0].slice(0, -1).trim()} of text built at run time)`);
  }
  if (/\bfeedkeys\s*\(/.test(c)) ctx.add('dynamic-command', `${detail} (feedkeys types commands)`);
  const inline = /^(py3?|python3?|pyx|pythonx|lua|perl|ruby|tcl)\s+(.*)$/s.exec(c);
  if (inline) ctx.code(inline[2]!, /^py/.test(inline[1]!) ? 'python' : inline[1]!);
  // :w FILE writes the buffer: a git hook or a start-up file is judged like a shell redirect.
  const write = /^(?:[\d,.$%']*)\s*(?:w(?:rite)?|sav(?:eas)?|up(?:date)?)!?\s+(?:>>\s*)?([^!\s|]\S*)/.exec(c);
  if (write) checkWrite(literal(write[1]!), `${detail} (:w ${write[1]})`, ctx);
}

/** A vim script or an ex script (one command a line; `"` comments, `\` continuation lines). */
export function vimScript(text: string, ctx: CheckContext, detail: string, file?: Word): void {
  const lines = text.replace(/\n\s*\\/g, ' ').split('\n');
  for (const line of lines) if (line.trim() !== '' && !/^\s*"/.test(line)) exCommand(line, ctx, detail, file);
}

/** Keystrokes vim reads from a file (`vim -s FILE`): the `:` commands in them; other keys that run commands ask. */
export function keystrokes(text: string, ctx: CheckContext, detail: string): void {
  for (const m of text.matchAll(/:([^\r\n]*)/g)) exCommand(m[1]!.replace(/<CR>$/i, ''), ctx, detail);
  if (/(^|[^:])!/.test(text.replace(/:[^\r\n]*/g, '')))
    ctx.add('dynamic-command', `${detail} (keystrokes that filter through a command)`);
}

/** vim's options that take the next word as their value (combined flags end in one: `-sc`). */
const VIM_VALUED = /^(-[a-zA-Z]*[cSuUiTwWtqsl]|--cmd|--servername|--remote\S*|--startuptime|--listen)$/;

/** vim -c CMD, --cmd CMD, +CMD, -S FILE, -u VIMRC, -s SCRIPTIN, nvim -l FILE; ex and `vim -e` read commands from stdin. */
const vim: Check = (cmd, io, ctx) => {
  const args = cmd.args;
  const detail = show(cmd);
  const exMode = cmd.name === 'ex' || args.some((a) => /^-[a-zA-Z]*[eE]/.test(a.text) && !a.text.startsWith('--'));
  // The file edited (the first operand): what a filter's `%!sh` or `w !sh` is fed. Option values are not operands.
  const file = args.find((a, i) => !/^[-+]/.test(a.text) && !VIM_VALUED.test(args[i - 1]?.text ?? ''));
  for (let i = 0; i < args.length; i += 1) {
    // Flags combine (`-sc CMD`, `-es`): the last one takes the value.
    const t = /^-[a-zA-Z]{2,}$/.test(args[i]!.text) ? `-${args[i]!.text.slice(-1)}` : args[i]!.text;
    const value = t === '-c' || t === '--cmd' ? args[(i += 1)]?.text : /^\+./.test(t) ? t.slice(1) : undefined;
    if (value !== undefined) exCommand(value, ctx, detail, file);
    if (t === '-S') {
      const f = args[i + 1] && !args[i + 1]!.text.startsWith('-') ? args[(i += 1)]! : literal('Session.vim');
      ctx.runsFile(f, 'vim');
    }
    if (t === '-u' && args[i + 1] && !/^(NONE|NORC|DEFAULTS)$/.test(args[i + 1]!.text))
      ctx.runsFile(args[(i += 1)]!, 'vim');
    if (t === '-l' && cmd.name === 'nvim' && args[i + 1]) ctx.runsFile(args[(i += 1)]!, 'lua');
    // -s FILE reads keystrokes (ex mode: -s is silent, no file).
    if (t === '-s' && !exMode && args[i + 1]) ctx.runsFile(args[(i += 1)]!, 'vim-keys');
  }
  // Ex mode reads its commands from standard input.
  if (exMode) exInput(io, ctx, detail, file);
};

/** Ex commands arriving on standard input (`ex file < cmds`, `echo '!cmd' | ex`, `ed`). */
function exInput(io: Io, ctx: CheckContext, detail: string, file: Word | undefined, language = 'vim'): void {
  const text = ctx.knownText(io);
  if (text !== undefined) (language === 'ed' ? edScript : vimScript)(text, ctx, detail, file);
  else if (io.stdinFile && !ctx.substitutionInput(io.stdinFile)) ctx.runsFile(io.stdinFile, language);
  else if (stdinIsDynamic(io) || io.upstream.length > 0)
    ctx.add('dynamic-command', `${detail} (commands read from another program's output)`);
}

/** ed scripts: `!cmd` runs a command, `w !cmd` and `r !cmd` pipe through one, `w FILE` writes. */
export function edScript(text: string, ctx: CheckContext, detail: string, file?: Word): void {
  for (const line of text.split('\n')) {
    // `w !cmd` is fed the buffer (the file edited); `!cmd` and `r !cmd` are not.
    const bang = /^\s*[\d,.$;'a-z]*?\s*([wWr]\s*)?!(.*)$/.exec(line);
    if (bang) ctx.script(bang[2]!, /^[wW]/.test(bang[1] ?? '') ? bufferInput(file) : undefined);
    const write = /^\s*[\d,.$;]*\s*[wW]\s+([^!\s]\S*)/.exec(line);
    if (write) checkWrite(literal(write[1]!), `${detail} (w ${write[1]})`, ctx);
  }
}

/** ed [-s] [-p PROMPT] [FILE]: its commands come from standard input. */
const ed: Check = (cmd, io, ctx) => {
  const file = cmd.args.find((a, i) => !/^-/.test(a.text) && cmd.args[i - 1]?.text !== '-p');
  exInput(io, ctx, show(cmd), file, 'ed');
};

const SED_ADDRESS = /^\s*((\d+|\$|\/(?:\\.|[^/\\])*\/)(,(\d+|\$|\/(?:\\.|[^/\\])*\/))?\s*!?\s*)?/;

/**
 * A sed script's commands: `;` and newlines separate them, `{` and `}` open and close a block, and `e`, `a`, `i`, `c`,
 * `r` and `w` take the rest of the line (continued past a backslash at its end: `1e\` then the command).
 */
function sedCommands(script: string): string[] {
  const out: string[] = [];
  for (const line of script.replace(/\\\n/g, ' ').split('\n')) {
    let rest = line;
    while (rest.trim() !== '') {
      const at = SED_ADDRESS.exec(rest)![0].length;
      if (/^[{}]/.test(rest.slice(at))) {
        rest = rest.slice(at + 1);
        continue;
      }
      if (/^[eaicrRwW](\s|$)/.test(rest.slice(at))) {
        out.push(rest);
        break;
      }
      const semi = rest.indexOf(';');
      out.push(semi < 0 ? rest : rest.slice(0, semi));
      if (semi < 0) break;
      rest = rest.slice(semi + 1);
    }
  }
  return out;
}

export function sedScript(script: string, ctx: CheckContext, detail: string): void {
  for (const raw of sedCommands(script)) {
    const c = raw.trim().replace(SED_ADDRESS, '');
    const e = /^e(\s+(.*))?$/s.exec(c);
    if (e) {
      if (e[2]?.trim()) ctx.script(e[2]);
      else ctx.add('dynamic-command', `${detail} (sed runs each line as a command)`);
      continue;
    }
    const w = /^[wW]\s*(\S.*)$/.exec(c);
    if (w && !/^\/dev\/std(out|err)$/.test(w[1]!)) checkWrite(literal(w[1]!), `${detail} (w ${w[1]})`, ctx);
    // GNU sed takes blanks between the flags (`s/a/b/ e`, `s/a/b/ w FILE`).
    const s = /^s(.)(?:\\.|(?!\1).)*\1((?:\\.|(?!\1).)*)\1([gpIiMme\d\s]*?)(?:w\s*(\S.*))?\s*$/s.exec(c);
    if (s?.[4] && !/^\/dev\/std(out|err)$/.test(s[4])) checkWrite(literal(s[4]), `${detail} (s///w ${s[4]})`, ctx);
    if (s && s[3]!.includes('e')) {
      ctx.add('dynamic-command', `${detail} (s///e runs the replaced line as a command)`);
      if (!/\\\d|&/.test(s[2]!)) ctx.script(s[2]!);
    }
  }
}

/** What a sed script runs (`e CMD`, `s///e`) and writes (`w FILE`); a script file is read and judged the same way. */
export const sedRuns: SedCheck = ({ scripts, scriptFiles: files }, cmd, io, ctx) => {
  // GNU sed joins the -e pieces with newlines: `-e '1e\' -e CMD` is one `e` command.
  if (scripts.length > 0) sedScript(scripts.join('\n'), ctx, show(cmd));
  for (const f of files) {
    if (f.text === '-' || f.text === '/dev/stdin') {
      const text = ctx.knownText(io);
      if (text !== undefined) sedScript(text, ctx, show(cmd));
      else ctx.add('dynamic-command', `${show(cmd)} (a sed script read from standard input)`);
    } else ctx.runsFile(f, 'sed');
  }
};

/** A gdb command: `shell CMD`, `!CMD`, `python CODE`, `call system("CMD")`, `source FILE`. */
export function gdbCommand(value: string, ctx: CheckContext): void {
  const sh = /^\s*(?:shell\s+|!)(.*)$/s.exec(value);
  if (sh) ctx.script(sh[1]!);
  const py = /^\s*(?:python3?|pi|py)\s+(.*)$/s.exec(value);
  if (py) ctx.code(py[1]!, 'python');
  const call = /\b(?:call|print|p)\s+(?:\(\w+\)\s*)?system\s*\(\s*"((?:\\.|[^"\\])*)"/.exec(value);
  if (call) ctx.script(call[1]!);
  const source = /^\s*source\s+(?:-v\s+)?(\S+)/.exec(value);
  if (source) ctx.runsFile(literal(source[1]!), /\.py$/.test(source[1]!) ? 'python' : 'gdb');
  if (/^\s*(pipe|\|)\s/.test(value)) ctx.script(value.replace(/^.*?\|\s*/s, ''));
}

/** An lldb command: `platform shell CMD`, `script CODE`, `command script import FILE`, `command source FILE`. */
export function lldbCommand(value: string, ctx: CheckContext): void {
  const sh = /^\s*(?:platform\s+shell|shell)\s+(?:-\S+\s+)*(?:--\s+)?(.*)$/s.exec(value);
  if (sh) ctx.script(sh[1]!);
  const py = /^\s*script\s+(?:-l\s+python\s+)?(.*)$/s.exec(value);
  if (py && py[1]!.trim() !== '') ctx.code(py[1]!, 'python');
  const imp = /^\s*command\s+script\s+import\s+(?:-\S+\s+)*(\S+)/.exec(value);
  if (imp) ctx.runsFile(literal(imp[1]!), 'python');
  const src = /^\s*command\s+source\s+(?:-\S+\s+)*(\S+)/.exec(value);
  if (src) ctx.runsFile(literal(src[1]!), 'lldb');
}

/**
 * A debugger's options that take a command or a command file (`option`'s groups: the option's name, then a value
 * given with `=`); `run` judges each value.
 */
function debuggerOptions(option: RegExp, run: (value: string, name: string, ctx: CheckContext) => void): Check {
  return (cmd, _io, ctx) => {
    for (let i = 0; i < cmd.args.length; i += 1) {
      const m = option.exec(cmd.args[i]!.text);
      const value = m ? (m[2] ?? cmd.args[(i += 1)]?.text) : undefined;
      if (value !== undefined) run(value, m![1]!, ctx);
    }
  };
}

/** gdb -ex CMD / -iex CMD / --eval-command=CMD, -x FILE / -ix FILE / --command=FILE. */
const gdb = debuggerOptions(
  /^--?(ex|iex|eval-command|init-eval-command|x|ix|command|init-command)(?:=(.*))?$/s,
  (v, o, ctx) =>
    /^(x|ix|command|init-command)$/.test(o)
      ? ctx.runsFile(literal(v), /\.py$/.test(v) ? 'python' : 'gdb')
      : gdbCommand(v, ctx),
);

/** lldb -o/-O/-k CMD, -s/-S/-K FILE, and their long names. */
const lldb = debuggerOptions(
  /^(-[oOkKsS]|--(?:one-line|one-line-before-file|one-line-on-crash|source|source-before-file|source-on-crash))(?:=(.*))?$/s,
  (v, o, ctx) => (/^(-[sSK]|--source)/.test(o) ? ctx.runsFile(literal(v), 'lldb') : lldbCommand(v, ctx)),
);

/** zip -T -TT CMD: the command zip runs to test the archive. */
const zip: Check = (cmd, _io, ctx) => {
  const args = cmd.args;
  const at = args.findIndex((a) => a.text === '-TT' || a.text.startsWith('--unzip-command'));
  if (at < 0) return;
  const t = args[at]!.text;
  const value = t.includes('=') ? t.slice(t.indexOf('=') + 1) : args[at + 1]?.text;
  if (value !== undefined) ctx.script(value);
};

judges(import.meta.url, { 'vim vi nvim ex view rvim vimdiff gvim': vim, gdb, lldb, 'ed red': ed, zip });
