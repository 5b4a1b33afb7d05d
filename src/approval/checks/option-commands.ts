// Programs that run a command given in an option or a configuration file they are pointed at: ssh -F FILE (its
// ProxyCommand, LocalCommand, KnownHostsCommand, Match exec), apt -o ...::Pre-Invoke=CMD and apt -c FILE, dpkg
// --pre-invoke/--post-invoke, wget --use-askpass, man -P/-H. The command is judged like any command line. Pure.
import { optionValues as values } from '../loaders/preloads.js';
import { literal, type Word } from '../words.js';
import { show, type Check, type CheckContext } from './types.js';

function commandLine(v: Word, who: string, ctx: CheckContext): void {
  if (v.dynamic) ctx.computed(v, who);
  else if (v.text.trim() !== '') ctx.script(v.text);
}

const ssh: Check = (cmd, _io, ctx) => {
  for (const f of values(cmd.args, ['-F'])) ctx.runsFile(f, 'ssh-config');
};

const apt: Check = (cmd, _io, ctx) => {
  for (const o of values(cmd.args, ['-o', '--option'])) {
    const m = /^([\w:-]*(Invoke|Pre-Install-Pkgs|Post-Install|Pre-Install)[\w:-]*)::?=?(.*)$/i.exec(o.text);
    if (m) commandLine({ ...o, text: m[3]!.replace(/^=/, '') }, `${cmd.name} -o ${m[1]}`, ctx);
  }
  for (const f of values(cmd.args, ['-c', '--config-file'])) ctx.runsFile(f, 'apt-config');
};

const dpkg: Check = (cmd, _io, ctx) => {
  for (const v of values(cmd.args, ['--pre-invoke', '--post-invoke'])) commandLine(v, 'dpkg --*-invoke', ctx);
};

const wget: Check = (cmd, _io, ctx) => {
  for (const v of values(cmd.args, ['--use-askpass'])) commandLine(v, 'wget --use-askpass', ctx);
};

const man: Check = (cmd, _io, ctx) => {
  for (const v of values(cmd.args, ['-P', '--pager', '-H', '--html'])) commandLine(v, show(cmd), ctx);
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

export const optionCommandChecks: Record<string, Check> = {
  ssh,
  scp: ssh,
  sftp: ssh,
  'apt-get': apt,
  apt,
  aptitude: apt,
  'apt-cache': apt,
  dpkg,
  wget,
  man,
};
