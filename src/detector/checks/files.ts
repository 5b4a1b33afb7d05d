// Checks for commands that delete, overwrite or re-permission files: rm, find, rsync, shred, tee, cp, mv, sed -i,
// ln, truncate, dd, chmod/chown. Pure.
import { has, parseFlags } from '../engine/argv.js';
import { classifyPath, classifyWrite, isBlockDevice } from '../engine/paths.js';
import { literal, type Word } from '../engine/words.js';
import { isAgentSettings } from './agents.js';
import { persistenceWrite } from './host.js';
import { gitSurfaceWrite } from './git-surfaces.js';
import { checkTraceWrite, isTrace, type WriteMode } from './traces.js';
import { show, stdinText, type Check, type CheckContext } from './types.js';
import { keyTable, names } from '../engine/names.js';
import { expandBraces } from '../programs/loaders/glob.js';
import type { RequestCheck } from '../programs/http/request.js';
import { judges } from './registry.js';
import type { SedCheck } from '../programs/sed/call.js';

/** The rule a recursive delete of each kind of path breaks. */
const RECURSIVE_RULE = keyTable<string>({
  root: 'delete-root',
  home: 'delete-home',
  'system-dir': 'delete-system-dir',
  'system-path outside project-all': 'recursive-delete',
});
/** The machine's own paths: deleting, re-permissioning or extracting over one changes the system. */
const SYSTEM = new Set(names('root home system-dir system-path'));

const KNOWN_HOSTS = /^(~|\$HOME|\$\{HOME\}|\/home\/[^/]+|\/Users\/[^/]+|\/root)\/\.ssh\/known_hosts$/;

/** A write onto `target`: a block device, system configuration, a network socket, or over a history file or log. */
export function checkWrite(target: Word, detail: string, ctx: CheckContext, mode: WriteMode = 'replace'): void {
  checkTraceWrite(target, mode, detail, ctx);
  // A file in a git directory's hooks runs by itself on the next commit, checkout or merge; config holds commands
  // (fsmonitor, aliases, filters); commondir and config.worktree make git read its configuration from elsewhere.
  gitSurfaceWrite(target, detail, ctx);
  if (isAgentSettings(target.text)) ctx.add('agent-safety', detail);
  persistenceWrite(target.text, detail, ctx);
  const c = classifyWrite(target, ctx.where);
  if (c === 'block-device') ctx.add('raw-disk-write', detail);
  // Appending a host's key to known_hosts (`ssh-keyscan github.com >> ~/.ssh/known_hosts`) is how CI and set-up
  // scripts trust a forge; replacing the file, or writing any other ~/.ssh file, still asks.
  else if (c === 'system-config' && !(mode === 'append' && KNOWN_HOSTS.test(target.text)))
    ctx.add('overwrite-system-config', detail);
  else if (c === 'network') ctx.add('reverse-shell', detail);
}

/** `{a,b}` and `{1..3}` in a word, as bash expands them (a word of more than 64 stays as it is). */
const bracesExpanded = (word: Word): Word[] =>
  word.pattern ? (expandBraces(word.text) ?? [word.text]).map((text) => ({ ...word, text })) : [word];

function deletes(targets: Word[], recursive: boolean, detail: string, ctx: CheckContext): void {
  for (const t of targets.flatMap(bracesExpanded)) {
    if (isBlockDevice(t.text)) ctx.add('raw-disk-write', detail);
    if (isTrace(t.text)) ctx.add('log-wipe', detail);
    if (isAgentSettings(t.text)) ctx.add('agent-safety', detail);
    // The repository itself (.git, its objects, refs or logs): every commit not pushed is gone.
    // A vendored copy's .git inside the project (vendor/x/.git) is not the project's history.
    const repo = /^(.*?)\/?\.git(\/(objects|refs|logs))?\/?(\*)?$/.exec(t.text);
    if (recursive && repo && (/^(\.\/?)?$|^[/~$]/.test(repo[1]!) || t.text.startsWith('..')))
      ctx.add('git-history', detail);
    const c = classifyPath(t, ctx.where);
    const rule = recursive ? RECURSIVE_RULE[c] : SYSTEM.has(c) ? 'delete-system-path' : undefined;
    if (rule) ctx.add(rule, detail);
  }
}

/** Start paths of a `find` command (operands before its first expression token; `.` when none). */
function findStarts(args: Word[]): { starts: Word[]; expr: Word[] } {
  let i = 0;
  while (i < args.length && /^-(H|L|P|D|O\d*)$/.test(args[i]!.text)) i += 1;
  const starts: Word[] = [];
  for (; i < args.length && !/^[-(!]/.test(args[i]!.text); i += 1) starts.push(args[i]!);
  return { starts: starts.length > 0 ? starts : [literal('.')], expr: args.slice(i) };
}

const rm: Check = (cmd, io, ctx) => {
  const f = parseFlags(cmd.args);
  const recursive = has(f, 'rR', '--recursive');
  if (has(f, '', '--no-preserve-root')) ctx.add('delete-root', show(cmd));
  if (cmd.viaXargs) {
    // The targets arrive on standard input: unknown, unless a find upstream says where they come from.
    const finder = io.upstream.find((u) => u.argv?.name === 'find');
    if (finder?.argv) {
      for (const s of findStarts(finder.argv.args).starts) findDeletes(s, true, show(cmd), ctx);
    } else if (recursive) ctx.add('recursive-delete', `${show(cmd)} (targets from xargs)`);
  }
  deletes(f.operands, recursive, show(cmd), ctx);
};

/** What deleting matches below a find start path means. */
function findDeletes(start: Word, filtered: boolean, detail: string, ctx: CheckContext): void {
  if (isTrace(`${start.text.replace(/\/+$/, '')}/match`)) ctx.add('log-wipe', detail);
  const c = classifyPath(filtered ? { ...start, text: `${start.text.replace(/\/+$/, '')}/match` } : start, ctx.where);
  const rule = c === 'outside' || c === 'system-path' || c === 'project-all' ? 'find-delete' : RECURSIVE_RULE[c];
  if (rule) ctx.add(rule, detail);
}

/** unlink PATH, rimraf PATH... (npm's recursive deletion): every operand is deleted. */
function deleter(recursive: boolean): Check {
  return (cmd, _io, ctx) => deletes(parseFlags(cmd.args).operands, recursive, show(cmd), ctx);
}

const FIND_VALUE_TESTS =
  /^-(name|iname|path|ipath|wholename|regex|iregex|type|xtype|mtime|mmin|atime|amin|ctime|cmin|newer|size|user|group|perm|empty|links|inum|samefile|uid|gid)$/;
const DELETERS = new Set(['rm', 'unlink', 'shred', 'rmdir']);

const find: Check = (cmd, _io, ctx) => {
  const { starts, expr } = findStarts(cmd.args);
  const filtered = expr.some((a) => FIND_VALUE_TESTS.test(a.text));
  // A match is named like its -name pattern (`*.pem` → match.pem), so what is done with it can be judged by name.
  const nameAt = expr.findIndex((a) => /^-i?name$/.test(a.text));
  const pattern = nameAt >= 0 ? expr[nameAt + 1]?.text : undefined;
  const leaf = pattern && !pattern.includes('/') ? pattern.replace(/\*/g, 'match').replace(/[?[\]]/g, 'x') : 'match';
  // With a filter, find deletes some of what is under its start paths, not all of it: judge a path below each.
  const matchIn = (start: Word): Word =>
    filtered ? { ...start, text: `${start.text.replace(/\/+$/, '')}/${leaf}` } : start;
  if (expr.some((a) => a.text === '-delete')) for (const s of starts) findDeletes(s, filtered, show(cmd), ctx);
  for (let j = 0; j < expr.length; j += 1) {
    if (!/^-(exec|execdir|ok|okdir)$/.test(expr[j]!.text)) continue;
    let end = j + 1;
    while (end < expr.length && expr[end]!.text !== ';' && expr[end]!.text !== '+') end += 1;
    const nested = expr.slice(j + 1, end);
    // A deleting command run on each match deletes what find matches, however it is spelled.
    if (nested[0] && DELETERS.has(nested[0].text.replace(/^.*\//, '')))
      for (const s of starts) findDeletes(s, filtered, show(cmd), ctx);
    // `{}` stands for each match (also inside a longer word): judge the nested command as if run on the start paths.
    for (const s of starts)
      ctx.argv(
        nested.map((w) => (w.text.includes('{}') ? { ...w, text: w.text.replaceAll('{}', matchIn(s).text) } : w)),
      );
    j = end;
  }
};

const rsync: Check = (cmd, _io, ctx) => {
  const f = parseFlags(cmd.args, ['-e', '--rsh', '--exclude', '--include', '--filter', '-f']);
  if ([...f.long].some((l) => l.startsWith('--del') || l === '--remove-source-files'))
    ctx.add('rsync-delete', show(cmd));
  const dest = f.operands.at(-1);
  if (f.operands.length > 1 && dest && !/^[^/]*:/.test(dest.text)) checkWrite(dest, show(cmd), ctx);
};

/** tar -x -C DIR writes into DIR. */
const tar: Check = (cmd, _io, ctx) => {
  const f = parseFlags(cmd.args, ['-C', '--directory', '-f', '--file', '-T', '--files-from', '-X', '--exclude-from']);
  const extracting = has(f, 'x', '--extract', '--get') || /^[a-z]*x/.test(cmd.args[0]?.text ?? '');
  const dir = f.values.get('-C') ?? f.values.get('--directory');
  if (!extracting || dir === undefined) return;
  if (SYSTEM.has(classifyPath(literal(dir), ctx.where))) ctx.add('overwrite-system-config', show(cmd));
};

const shred: Check = (cmd, _io, ctx) => {
  const f = parseFlags(cmd.args, ['-n', '--iterations', '-s', '--size', '--random-source']);
  ctx.add('shred', show(cmd));
  for (const t of f.operands) if (isBlockDevice(t.text)) ctx.add('raw-disk-write', show(cmd));
};

/** tee [-a] FILE...: each file is written with the text tee is given, judged as a redirect writing it. */
const tee: Check = (cmd, io, ctx) => {
  const f = parseFlags(cmd.args, ['--output-error']);
  const text = stdinText(io) ?? ctx.knownText(io);
  for (const t of f.operands) ctx.writesText(t, text, has(f, 'a', '--append') ? 'append' : 'output', show(cmd));
};

/** A destination that is a directory receives each source under its own name (`cp config evil.git`). */
function intoDirectory(dest: Word, sources: Word[], detail: string, ctx: CheckContext): void {
  for (const s of sources) {
    const name = s.text.replace(/\/+$/, '').replace(/^.*\//, '');
    if (!s.dynamic && name !== '')
      gitSurfaceWrite({ ...dest, text: `${dest.text.replace(/\/+$/, '')}/${name}` }, detail, ctx);
  }
}

/** cp, mv, install, ln: the destination is the last operand (ln's, when it has two), or -t DIR. */
function copyLike(kind: 'copy' | 'move' | 'link'): Check {
  const valueOpts = `-t --target-directory -S --suffix${kind === 'link' ? '' : ' -m --mode -o --owner -g --group'}`;
  return (cmd, _io, ctx) => {
    const f = parseFlags(cmd.args, names(valueOpts));
    const dir = f.values.get('-t') ?? f.values.get('--target-directory');
    const last = kind !== 'link' || f.operands.length > 1 ? f.operands.at(-1) : undefined;
    const dest = dir !== undefined ? literal(dir) : last;
    if (dest) checkWrite(dest, show(cmd), ctx);
    const sources = dir !== undefined ? f.operands : f.operands.slice(0, -1);
    if (dest) intoDirectory(dest, sources, show(cmd), ctx);
    // Moved onto /dev/null, a source is gone (and, as root, so is the device): judged as deleting it whole.
    if (kind === 'move') deletes(sources, dest?.text === '/dev/null', show(cmd), ctx);
  };
}

/** sed -i writes the files it edits. */
export const sedWrites: SedCheck = ({ inPlace, files }, cmd, _io, ctx) => {
  if (inPlace) for (const t of files) checkWrite(t, show(cmd), ctx);
};

const truncate: Check = (cmd, _io, ctx) => {
  for (const t of parseFlags(cmd.args, ['-s', '--size', '-r', '--reference']).operands) checkWrite(t, show(cmd), ctx);
};

const dd: Check = (cmd, _io, ctx) => {
  for (const a of cmd.args) if (a.text.startsWith('of=')) checkWrite({ ...a, text: a.text.slice(3) }, show(cmd), ctx);
};

/** curl -o FILE / wget -O FILE write where they are told; -P/--output-dir DIR is judged as a file in DIR. */
export const responseWrites: RequestCheck = (req, cmd, _io, ctx) => {
  for (const v of req.outputs) {
    checkWrite(literal(v), show(cmd), ctx);
    ctx.downloaded.add(v.replace(/^\.\//, ''));
  }
  for (const v of req.outputDirs) checkWrite(literal(`${v.replace(/\/+$/, '')}/x`), show(cmd), ctx);
};

/** A symbolic chmod mode that starts with '-' (`-x`, `-w,u+x`). */
const NEGATIVE_MODE = /^-[rwxXstugo=+,-]*[rwxXst][rwxXstugo=+,-]*$/;
/** A chmod mode that sets the set-uid or set-gid bit: octal (4755, 6755) or symbolic (u+s, +s, a=rx,g+s). */
const SETS_ID = /^[0-7]?[2467][0-7]{3}$|(^|,)[ugoa]*[+=][rwxXt]*s/;

/** chmod MODE PATH..., chown OWNER PATH...: the first operand is not a path unless --reference is used. */
function permissions(firstIsSpec: boolean): Check {
  return (cmd, _io, ctx) => {
    // A symbolic mode may start with '-' (chmod -x FILE): it is the mode, not options.
    const isMode = (a: Word): boolean => NEGATIVE_MODE.test(a.text) && !/^-[Rvcf]+$/.test(a.text);
    const args = cmd.name === 'chmod' ? cmd.args.map((a) => (isMode(a) ? { ...a, text: `=${a.text}` } : a)) : cmd.args;
    const f = parseFlags(args, ['--reference', '--from']);
    const paths = firstIsSpec && !f.values.has('--reference') ? f.operands.slice(1) : f.operands;
    // Set-uid and set-gid bits make a file run as its owner, wherever it is (u+s, +s, 4755, 6755).
    const mode = cmd.name === 'chmod' && firstIsSpec ? f.operands[0]?.text.replace(/^=/, '') : undefined;
    if (mode !== undefined && SETS_ID.test(mode)) ctx.add('security-posture', show(cmd));
    // Anyone may write (777, 666, o+w, a+w): a container socket or a file outside the project becomes everyone's.
    const worldWritable =
      mode !== undefined &&
      (/^[0-7]?[0-7]{2}[2367]$/.test(mode) || mode.split(',').some((m) => /^[ugo]*[oa][ugoa]*[+=][rwxXst]*w/.test(m)));
    for (const p of paths) {
      const c = classifyPath(p, ctx.where);
      if (worldWritable && (/\.sock$/.test(p.text) || (c !== 'inside' && c !== 'temp')))
        ctx.add('security-posture', show(cmd));
      if (isAgentSettings(p.text)) ctx.add('agent-safety', show(cmd));
    }
    // Taking permissions away from group and others (600, 700, go-rwx) on the user's own files (~/.ssh) is hygiene.
    const restrictive = mode !== undefined && (/^0?[4-7]00$/.test(mode) || /^[go]+-[rwx]+$/.test(mode));
    for (const p of paths.flatMap(bracesExpanded)) {
      if (restrictive && /^(~|\$HOME|\$\{HOME\}|\/home\/[^/]+)\//.test(p.text)) continue;
      if (SYSTEM.has(classifyPath(p, ctx.where))) ctx.add('system-permissions', show(cmd));
    }
  };
}

/** fd PATTERN PATH -x CMD: like find -exec. */
const fd: Check = (cmd, _io, ctx) => {
  const at = cmd.args.findIndex((a) => /^(-x|--exec|-X|--exec-batch)$/.test(a.text));
  if (at < 0) return;
  const ops = parseFlags(cmd.args.slice(0, at), names(`-e --extension -t --type -d --max-depth -E --exclude`)).operands;
  const filtered = ops[0] !== undefined && !['.', '', '^'].includes(ops[0].text);
  const starts = ops.length > 1 ? ops.slice(1) : [literal('.')];
  if (DELETERS.has(cmd.args[at + 1]?.text.replace(/^.*\//, '') ?? ''))
    for (const s of starts) findDeletes(s, filtered, show(cmd), ctx);
};

judges(
  import.meta.url,
  {
    rm,
    rimraf: deleter(true),
    'fd fdfind': fd,
    unlink: deleter(false),
    find,
    rsync,
    tar,
    shred,
    tee,
    'cp install': copyLike('copy'),
    mv: copyLike('move'),
    ln: copyLike('link'),
    truncate,
    dd,
    'chmod chown chgrp chattr': permissions(true),
    setfacl: permissions(false),
  },
  { claims: true },
);
