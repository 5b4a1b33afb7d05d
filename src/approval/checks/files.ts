// Checks for commands that delete, overwrite or re-permission files: rm, find, rsync, shred, tee, cp, mv, sed -i,
// ln, truncate, dd, chmod/chown. Pure.
import { has, parseFlags } from '../argv.js';
import { classifyPath, classifyWrite, isBlockDevice, type PathClass } from '../paths.js';
import { literal, type Word } from '../words.js';
import { show, type Check, type CheckContext } from './types.js';

const RECURSIVE_RULE: Partial<Record<PathClass, string>> = {
  root: 'delete-root',
  home: 'delete-home',
  'system-dir': 'delete-system-dir',
  'system-path': 'recursive-delete',
  outside: 'recursive-delete',
  'project-all': 'recursive-delete',
};

const SINGLE_RULE: Partial<Record<PathClass, string>> = {
  root: 'delete-system-path',
  home: 'delete-system-path',
  'system-dir': 'delete-system-path',
  'system-path': 'delete-system-path',
};

/** A write onto `target`: a block device, system configuration or a network socket. */
export function checkWrite(target: Word, detail: string, ctx: CheckContext): void {
  const c = classifyWrite(target, ctx.cwd);
  if (c === 'block-device') ctx.add('raw-disk-write', detail);
  else if (c === 'system-config') ctx.add('overwrite-system-config', detail);
  else if (c === 'network') ctx.add('reverse-shell', detail);
}

function deletes(targets: Word[], recursive: boolean, detail: string, ctx: CheckContext): void {
  for (const t of targets) {
    if (isBlockDevice(t.text)) ctx.add('raw-disk-write', detail);
    const rule = (recursive ? RECURSIVE_RULE : SINGLE_RULE)[classifyPath(t, ctx.cwd)];
    if (rule) ctx.add(rule, detail);
  }
}

const rm: Check = (cmd, _io, ctx) => {
  const f = parseFlags(cmd.args);
  const recursive = has(f, 'rR', '--recursive');
  if (f.long.has('--no-preserve-root')) ctx.add('delete-root', show(cmd));
  // Through xargs the targets arrive on standard input: unknown.
  if (recursive && cmd.viaXargs) ctx.add('recursive-delete', `${show(cmd)} (targets from xargs)`);
  deletes(f.operands, recursive, show(cmd), ctx);
};

const unlink: Check = (cmd, _io, ctx) => deletes(parseFlags(cmd.args).operands, false, show(cmd), ctx);

const FIND_VALUE_TESTS = /^-(name|iname|path|ipath|wholename|regex|iregex|type|xtype|mtime|mmin|atime|amin|ctime|cmin|newer|size|user|group|perm|empty|links|inum|samefile|uid|gid)$/;

const find: Check = (cmd, _io, ctx) => {
  const args = cmd.args;
  const starts: Word[] = [];
  let i = 0;
  // Global options come first, then start paths until the first expression token.
  while (i < args.length && /^-(H|L|P|D|O\d*)$/.test(args[i]!.text)) i += 1;
  for (; i < args.length && !/^[-(!]/.test(args[i]!.text); i += 1) starts.push(args[i]!);
  if (starts.length === 0) starts.push(literal('.'));
  const expr = args.slice(i);
  const filtered = expr.some((a) => FIND_VALUE_TESTS.test(a.text));
  // With a filter, find deletes some of what is under its start paths, not all of it: judge a path below each.
  const matchIn = (start: Word): Word => (filtered ? { ...start, text: `${start.text.replace(/\/+$/, '')}/match` } : start);
  if (expr.some((a) => a.text === '-delete')) {
    for (const s of starts) {
      const c = classifyPath(matchIn(s), ctx.cwd);
      const rule = c === 'root' || c === 'home' || c === 'system-dir' ? RECURSIVE_RULE[c] : c === 'outside' || c === 'system-path' || c === 'project-all' ? 'find-delete' : undefined;
      if (rule) ctx.add(rule, show(cmd));
    }
  }
  for (let j = 0; j < expr.length; j += 1) {
    if (!/^-(exec|execdir|ok|okdir)$/.test(expr[j]!.text)) continue;
    let end = j + 1;
    while (end < expr.length && expr[end]!.text !== ';' && expr[end]!.text !== '+') end += 1;
    const nested = expr.slice(j + 1, end);
    // `{}` stands for each match: judge the nested command as if run on the start paths.
    for (const s of starts) ctx.argv(nested.map((w) => (w.text === '{}' ? matchIn(s) : w)));
    j = end;
  }
};

const rsync: Check = (cmd, _io, ctx) => {
  const f = parseFlags(cmd.args, ['-e', '--rsh', '--exclude', '--include', '--filter', '-f']);
  if ([...f.long].some((l) => l.startsWith('--del') || l === '--remove-source-files')) ctx.add('rsync-delete', show(cmd));
};

const shred: Check = (cmd, _io, ctx) => {
  const f = parseFlags(cmd.args, ['-n', '--iterations', '-s', '--size', '--random-source']);
  ctx.add('shred', show(cmd));
  for (const t of f.operands) if (isBlockDevice(t.text)) ctx.add('raw-disk-write', show(cmd));
};

const tee: Check = (cmd, _io, ctx) => {
  for (const t of parseFlags(cmd.args, ['--output-error']).operands) checkWrite(t, show(cmd), ctx);
};

/** cp, mv, install: the destination is the last operand, or -t DIR. */
function copyLike(moves: boolean): Check {
  return (cmd, _io, ctx) => {
    const f = parseFlags(cmd.args, ['-t', '--target-directory', '-S', '--suffix', '-m', '--mode', '-o', '--owner', '-g', '--group']);
    const dir = f.values.get('-t') ?? f.values.get('--target-directory');
    const dest = dir !== undefined ? literal(dir) : f.operands.at(-1);
    if (dest) checkWrite(dest, show(cmd), ctx);
    if (!moves) return;
    const sources = dir !== undefined ? f.operands : f.operands.slice(0, -1);
    deletes(sources, false, show(cmd), ctx);
  };
}

const sed: Check = (cmd, _io, ctx) => {
  const f = parseFlags(cmd.args, ['-e', '--expression', '-f', '--file', '-l', '--line-length']);
  if (!has(f, 'i', '--in-place')) return;
  const scriptGiven = f.values.has('-e') || f.values.has('--expression') || f.values.has('-f') || f.values.has('--file');
  for (const t of scriptGiven ? f.operands : f.operands.slice(1)) checkWrite(t, show(cmd), ctx);
};

const ln: Check = (cmd, _io, ctx) => {
  const f = parseFlags(cmd.args, ['-t', '--target-directory', '-S', '--suffix']);
  const dir = f.values.get('-t') ?? f.values.get('--target-directory');
  const link = dir !== undefined ? literal(dir) : f.operands.length > 1 ? f.operands.at(-1) : undefined;
  if (link) checkWrite(link, show(cmd), ctx);
};

const truncate: Check = (cmd, _io, ctx) => {
  for (const t of parseFlags(cmd.args, ['-s', '--size', '-r', '--reference']).operands) checkWrite(t, show(cmd), ctx);
};

const dd: Check = (cmd, _io, ctx) => {
  for (const a of cmd.args) if (a.text.startsWith('of=')) checkWrite({ ...a, text: a.text.slice(3) }, show(cmd), ctx);
};

/** curl -o FILE / wget -O FILE write where they are told. */
const download: Check = (cmd, _io, ctx) => {
  const f = parseFlags(cmd.args, ['-o', '--output', '-O', '--output-document', '-H', '--header', '-d', '--data', '-X', '--request', '-u', '--user', '-A', '--user-agent', '-e', '-T', '--upload-file', '-P', '--directory-prefix']);
  for (const key of ['-o', '--output', '--output-document', ...(cmd.name === 'wget' ? ['-O'] : [])]) {
    const v = f.values.get(key);
    if (v !== undefined && v !== '-') checkWrite(literal(v), show(cmd), ctx);
  }
};

/** chmod MODE PATH..., chown OWNER PATH...: the first operand is not a path unless --reference is used. */
function permissions(firstIsSpec: boolean): Check {
  return (cmd, _io, ctx) => {
    const f = parseFlags(cmd.args, ['--reference', '--from']);
    const paths = firstIsSpec && !f.values.has('--reference') ? f.operands.slice(1) : f.operands;
    for (const p of paths) {
      const c = classifyPath(p, ctx.cwd);
      if (c === 'root' || c === 'home' || c === 'system-dir' || c === 'system-path') ctx.add('system-permissions', show(cmd));
    }
  };
}

export const fileChecks: Record<string, Check> = {
  rm,
  unlink,
  find,
  rsync,
  shred,
  tee,
  cp: copyLike(false),
  install: copyLike(false),
  mv: copyLike(true),
  sed,
  ln,
  truncate,
  dd,
  curl: download,
  wget: download,
  chmod: permissions(true),
  chown: permissions(true),
  chgrp: permissions(true),
  setfacl: permissions(false),
  chattr: permissions(true),
};

