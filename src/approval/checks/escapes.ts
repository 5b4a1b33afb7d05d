// Programs that run shell commands given as editor or debugger commands: vim/ex `-c ':!CMD'` (and `:call system()`,
// `:py3`), GNU sed's `e` command and `s///e` flag, gdb `-ex 'shell CMD'`, zip's `-TT CMD`. The command is judged like
// any command line; a shell started from them is an interactive shell. Pure.
import { show, type Check, type CheckContext } from './types.js';

/** An ex command (`:!rm -rf x`, `silent !cmd`, `call system("cmd")`, `py3 import os; ...`): what it runs. */
function exCommand(raw: string, ctx: CheckContext, detail: string): void {
  const c = raw.replace(/^[:\s]+/, '').replace(/^(silent!?|sil!?|exe(cute)?)\s+/, '');
  const bang = /^(?:[\d,.$%]*)\s*(?:r(?:ead)?\s*|w(?:rite)?\s*)?!(.*)$/s.exec(c);
  if (bang) {
    ctx.script(bang[1]!);
    return;
  }
  if (/^(sh(ell)?|term(inal)?)\b/.test(c)) {
    ctx.add('dynamic-command', `${detail} (an interactive shell)`);
    return;
  }
  for (const m of c.matchAll(/\b(?:system|systemlist|jobstart|termopen)\s*\(\s*(["'])((?:\\.|(?!\1)[^\\])*)\1/g))
    ctx.script(m[2]!);
  const py = /^(py3?|python3?|pyx|pythonx)\s+(.*)$/s.exec(c);
  if (py) ctx.code(py[2]!, 'python');
  const lua = /^lua\s+(.*)$/s.exec(c);
  if (lua) ctx.code(lua[1]!, 'lua');
  const perl = /^perl\s+(.*)$/s.exec(c);
  if (perl) ctx.code(perl[1]!, 'perl');
}

/** vim -c CMD, --cmd CMD, +CMD (also vi, nvim, ex, view, rvim, vimdiff). */
const vim: Check = (cmd, _io, ctx) => {
  const args = cmd.args;
  for (let i = 0; i < args.length; i += 1) {
    const t = args[i]!.text;
    const value = t === '-c' || t === '--cmd' ? args[(i += 1)]?.text : /^\+./.test(t) ? t.slice(1) : undefined;
    if (value !== undefined) exCommand(value, ctx, show(cmd));
  }
};

/** The commands of a sed script: `e CMD` runs CMD, a bare `e` or `s///e` runs text made at run time. */
function sedScript(script: string, ctx: CheckContext, detail: string): void {
  for (const raw of script.split(/[;\n]/)) {
    const c = raw.trim().replace(/^(\d+|\$|\/(?:\\.|[^/\\])*\/)(,(\d+|\$|\/(?:\\.|[^/\\])*\/))?\s*!?\s*/, '');
    const e = /^e(\s+(.*))?$/s.exec(c);
    if (e) {
      if (e[2]?.trim()) ctx.script(e[2]);
      else ctx.add('dynamic-command', `${detail} (sed runs each line as a command)`);
      continue;
    }
    const s = /^s(.)(?:\\.|(?!\1).)*\1((?:\\.|(?!\1).)*)\1([gpIiMm\d]*e[gpIiMme\d]*)$/s.exec(c);
    if (s) {
      ctx.add('dynamic-command', `${detail} (s///e runs the replaced line as a command)`);
      if (!/\\\d|&/.test(s[2]!)) ctx.script(s[2]!);
    }
  }
}

const sed: Check = (cmd, _io, ctx) => {
  const args = cmd.args;
  const scripts: string[] = [];
  let operand = false;
  for (let i = 0; i < args.length; i += 1) {
    const t = args[i]!.text;
    if (t === '-e' || t === '--expression') scripts.push(args[(i += 1)]?.text ?? '');
    else if (t.startsWith('--expression=')) scripts.push(t.slice(13));
    else if (t === '-f' || t === '--file' || t === '-l' || t === '--line-length') i += 1;
    else if (!t.startsWith('-') && !operand) {
      operand = true;
      if (!args.some((a) => a.text === '-e' || a.text.startsWith('--expression') || a.text === '-f')) scripts.push(t);
    }
  }
  for (const s of scripts) sedScript(s, ctx, show(cmd));
};

/** gdb -ex 'shell CMD' / -ex '!CMD' / -ex 'python ...'; also --eval-command. */
const gdb: Check = (cmd, _io, ctx) => {
  const args = cmd.args;
  for (let i = 0; i < args.length; i += 1) {
    const t = args[i]!.text;
    const value =
      t === '-ex' || t === '--ex' || t === '-eval-command' || t === '--eval-command'
        ? args[(i += 1)]?.text
        : t.startsWith('--eval-command=')
          ? t.slice(15)
          : undefined;
    if (value === undefined) continue;
    const sh = /^\s*(?:shell\s+|!)(.*)$/s.exec(value);
    if (sh) ctx.script(sh[1]!);
    const py = /^\s*(?:python3?|pi)\s+(.*)$/s.exec(value);
    if (py) ctx.code(py[1]!, 'python');
    const call = /\b(?:call|print|p)\s+(?:\(\w+\)\s*)?system\s*\(\s*"((?:\\.|[^"\\])*)"/.exec(value);
    if (call) ctx.script(call[1]!);
  }
};

/** zip -T -TT CMD: the command zip runs to test the archive. */
const zip: Check = (cmd, _io, ctx) => {
  const args = cmd.args;
  const at = args.findIndex((a) => a.text === '-TT' || a.text.startsWith('--unzip-command'));
  if (at < 0) return;
  const t = args[at]!.text;
  const value = t.includes('=') ? t.slice(t.indexOf('=') + 1) : args[at + 1]?.text;
  if (value !== undefined) ctx.script(value);
};

export const escapeChecks: Record<string, Check> = {
  vim,
  vi: vim,
  nvim: vim,
  ex: vim,
  view: vim,
  rvim: vim,
  vimdiff: vim,
  gvim: vim,
  sed,
  gsed: sed,
  gdb,
  zip,
};
