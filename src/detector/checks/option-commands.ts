// Programs that run a command given in an option or a configuration file they are pointed at: ssh -F FILE (its
// ProxyCommand, LocalCommand, KnownHostsCommand, Match exec), apt -o ...::Pre-Invoke=CMD and apt -c FILE, dpkg
// --pre-invoke/--post-invoke, wget --use-askpass and -e use_askpass=CMD, man -P/-H, split --filter=CMD, rpm --eval
// '%(CMD)', gpg --photo-viewer CMD, less +!CMD, rg --pre CMD, openssl -engine LIB. The command is judged like any
// command line; a shell or interpreter fed the program's data (sort --compress-program=sh) runs the data. Long
// options match their abbreviations (`split --fi CMD`) where the program accepts them (long-options.ts). Pure.
import { optionValues as values } from '../programs/loaders/preloads.js';
import { literal, type Word } from '../engine/words.js';
import { runsCode } from './exec.js';
import { show, type Check, type CheckContext } from './types.js';
import type { RequestCheck } from '../programs/http/request.js';
import { judges } from './registry.js';

function commandLine(v: Word, who: string, ctx: CheckContext): void {
  if (v.dynamic) ctx.computed(v, who);
  else if (v.text.trim() !== '') ctx.script(v.text);
}

/** A check that judges the value of each of `opts` as a command line (named `who`, else the command itself). */
const commandOption =
  (opts: string[], who?: string, abbreviate?: boolean): Check =>
  (cmd, _io, ctx) => {
    for (const v of values(cmd.args, opts, abbreviate)) commandLine(v, who ?? show(cmd), ctx);
  };

/**
 * A command that a program feeds its data (file contents, sorted lines) on standard input: a shell or interpreter
 * given no program of its own (`sh`, `bash -s`, `python3 -`) runs that data as its program, which the gate cannot see.
 */
function feedsData(text: string, who: string, ctx: CheckContext): void {
  const [first, ...rest] = text.trim().split(/\s+/);
  const name = first?.slice(first.lastIndexOf('/') + 1) ?? '';
  const own = rest.some((w) => !w.startsWith('-') || /^-[a-zA-Z]*[ceE]$/.test(w) || /^--(command|eval)/.test(w));
  if (runsCode(name) && !own)
    ctx.add('dynamic-command', `${who} ${text.trim()}: the data it is fed becomes the program ${name} runs`);
}

/** sort --compress-program=PROG: PROG gets sort's data on standard input (the program itself is judged elsewhere). */
const sort: Check = (cmd, _io, ctx) => {
  for (const v of values(cmd.args, ['--compress-program']))
    if (!v.dynamic) feedsData(v.text, 'sort --compress-program', ctx);
};

/** split --filter=CMD: a shell command line run for every piece, the piece on its standard input. */
const split: Check = (cmd, _io, ctx) => {
  for (const v of values(cmd.args, ['--filter'])) {
    commandLine(v, 'split --filter', ctx);
    if (!v.dynamic) feedsData(v.text, 'split --filter', ctx);
  }
};

/** rpm macros: `%(CMD)` runs a shell command, `%{lua: ...}` runs Lua, when rpm --eval or --define expands them. */
const rpm: Check = (cmd, _io, ctx) => {
  for (const v of values(cmd.args, ['--eval', '-E', '--define', '-D', '--macros'], false)) {
    if (v.dynamic) {
      if (/%[({]/.test(v.text)) ctx.computed(v, `${cmd.written} --eval`);
      continue;
    }
    for (const m of v.text.matchAll(/%\(([^()]*(?:\([^()]*\)[^()]*)*)\)/g)) ctx.script(m[1]!);
    for (const m of v.text.matchAll(/%\{lua:([\s\S]*)\}/g)) ctx.code(m[1]!, 'lua');
  }
};

/**
 * less +CMD runs a less command at start: `!CMD` runs a shell command, `|mCMD` pipes to one. The LESS variable holds
 * options less reads before its command line, `+CMD` among them (to the end of the value).
 */
const less: Check = (cmd, _io, ctx) => {
  for (const a of cmd.args) {
    const m = /^\++(?:!|\|.)(.*)$/s.exec(a.text);
    if (m) commandLine({ ...a, text: m[1]! }, 'less +!', ctx);
  }
  const env = ctx.commandEnv.get('LESS');
  const m = env && /(?:^|\s)\++(?:!|\|.)(.*)$/s.exec(env.text);
  if (env && m) commandLine({ ...env, text: m[1]! }, 'LESS=+!', ctx);
};

/** openssl -engine FILE.so / -provider-path DIR: loads a library of code into openssl. */
const openssl: Check = (cmd, _io, ctx) => {
  for (const v of values(cmd.args, ['-engine', '-provider-path', '-provider']))
    if (v.dynamic || v.text.includes('/') || /\.so(\.|$)/.test(v.text))
      ctx.add('hijack-path', `openssl ... ${v.text} (loads a library of code)`);
  for (const v of values(cmd.args, ['-pre', '-post']))
    if (/^SO_PATH:/i.test(v.text)) ctx.add('hijack-path', `openssl engine ... ${v.text} (loads a library of code)`);
};

const apt: Check = (cmd, _io, ctx) => {
  for (const o of values(cmd.args, ['-o', '--option'], false)) {
    const m = /^([\w:-]*(Invoke|Pre-Install-Pkgs|Post-Install|Pre-Install)[\w:-]*)::?=?(.*)$/i.exec(o.text);
    if (m) commandLine({ ...o, text: m[3]!.replace(/^=/, '') }, `${cmd.name} -o ${m[1]}`, ctx);
  }
  for (const f of values(cmd.args, ['-c', '--config-file'], false)) ctx.runsFile(f, 'apt-config');
};

/** wget --use-askpass CMD and -e use_askpass=CMD: a command wget runs for a password. */
export const askpassRequest: RequestCheck = (req, cmd, _io, ctx) => {
  if (req.client !== 'wget') return;
  for (const v of values(cmd.args, ['--use-askpass'])) commandLine(v, 'wget --use-askpass', ctx);
  // -e COMMAND is a wgetrc line; use_askpass names a command wget runs.
  for (const v of values(cmd.args, ['-e', '--execute'])) {
    const m = /^\s*use_?askpass\s*=\s*(.*)$/is.exec(v.text);
    if (m) commandLine({ ...v, text: m[1]! }, 'wget -e use_askpass', ctx);
  }
};

/** An ssh_config: the commands it runs (ProxyCommand, LocalCommand, KnownHostsCommand, Match exec), its includes. */
export function sshConfig(text: string, ctx: CheckContext): void {
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const m = /^(ProxyCommand|LocalCommand|KnownHostsCommand)\s*=?\s*(.+)$/i.exec(line);
    if (m && m[2]!.trim().toLowerCase() !== 'none') ctx.script(m[2]!.replace(/%[a-zA-Z%]/g, 'x'));
    const exec = /^Match\b.*\bexec\s+("([^"]*)"|(\S+))/i.exec(line);
    if (exec) ctx.script((exec[2] ?? exec[3]!).replace(/%[a-zA-Z%]/g, 'x'));
    const inc = /^Include\s+(.+)$/i.exec(line);
    if (inc) for (const f of inc[1]!.split(/\s+/)) ctx.runsFile(literal(f), 'ssh-config');
  }
}

/** An apt configuration file: the strings of its Invoke lists are commands. */
export function aptConfig(text: string, ctx: CheckContext): void {
  for (const m of text.matchAll(/(Invoke|Pre-Install-Pkgs)[^{;]*\{([^}]*)\}/gi))
    for (const c of m[2]!.matchAll(/"((?:\\.|[^"\\])*)"/g)) ctx.script(c[1]!);
  for (const m of text.matchAll(/(Invoke|Pre-Install-Pkgs)[\w:-]*\s+"((?:\\.|[^"\\])*)"/gi)) ctx.script(m[2]!);
}

judges(import.meta.url, {
  // ssh -F FILE: the configuration file's commands (sshConfig).
  'ssh scp sftp': (cmd, _io, ctx) => {
    for (const f of values(cmd.args, ['-F'])) ctx.runsFile(f, 'ssh-config');
  },
  'apt-get apt aptitude apt-cache': apt,
  dpkg: commandOption(['--pre-invoke', '--post-invoke'], 'dpkg --*-invoke', false),
  man: commandOption(['-P', '--pager', '-H', '--html']),
  sort,
  split,
  'rpm rpmspec rpmbuild': rpm,
  'gpg gpg2': commandOption(['--photo-viewer'], 'gpg --photo-viewer'),
  less,
  // rg --pre CMD: a preprocessor run on every file searched.
  rg: commandOption(['--pre'], 'rg --pre', false),
  openssl,
});
