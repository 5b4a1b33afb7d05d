// A file the verdict was reached on, changed by the same command line before it runs: `cp payload.txt ok.sh; sh
// ok.sh` judged ok.sh as it was on disk, not as the line leaves it. Pure (works on a parsed tree).
import { posix } from 'node:path';
import { peel } from './argv.js';
import type { ParseBash, SyntaxNode } from './parser.js';
import { commandWords, firstCommand, named as children, printedText, redirectsOf, stdinTextOf } from './syntax.js';
import { listedDir } from './scripts.js';
import { literal, wordOf, type Vars, type Word } from './words.js';
import { keyTable } from './names.js';
import { optionValues } from './long-options.js';
import { gitCall } from '../programs/git/call.js';

/** What a writing program changes, from its arguments (options and operands, as written). */
type Changed = (args: string[]) => { paths: string[]; dirs: string[] };

const operands = (args: string[]): string[] => {
  const i = args.indexOf('--');
  return i >= 0 ? args.slice(i + 1) : args.filter((a) => !a.startsWith('-'));
};
/** The values of options given as `-o v`, `-ov`, `--output v` or `--output=v` (full names only). */
const option = (args: string[], opts: readonly string[]): string[] =>
  optionValues(args.map(literal), opts, false).map((w) => w.text);
/** The destination of cp, mv, install, ln, rsync: `-t DIR`, else the last operand. */
const destination: Changed = (args) => {
  const t = option(args, ['-t', '--target-directory']);
  const ops = operands(args);
  return { paths: t.length > 0 ? [] : ops.slice(-1), dirs: t.length > 0 ? t : ops.slice(-1) };
};
const named: Changed = (args) => ({ paths: operands(args), dirs: [] });
const outputOption: Changed = (args) => ({ paths: option(args, ['-out', '-o', '-O', '--output']), dirs: [] });
/** An archive extracted into `-C`/`-d`/`-o` DIR, or the current directory. */
const extracts =
  (dirOption: string[]): Changed =>
  (args) => {
    const into = option(args, [...dirOption, '--directory']);
    return { paths: [], dirs: into.length > 0 ? into : ['.'] };
  };

const WRITERS = keyTable<Changed>({
  'cp mv install ln link rsync': destination,
  dd: (args) => ({ paths: args.filter((a) => a.startsWith('of=')).map((a) => a.slice(3)), dirs: [] }),
  'tee truncate ed ex vi vim nano emacs sponge': named,
  'sort curl wget openssl iconv shuf': outputOption,
  patch: (args) => ({
    paths: [...operands(args).slice(0, 1), ...option(args, ['-o', '--output'])],
    dirs: operands(args).length === 0 ? ['.'] : [],
  }),
  tar: (args) =>
    args.some((a) => /^-?[a-zA-Z]*x/.test(a) || a === '--extract' || a === '--get')
      ? extracts(['-C'])(args)
      : { paths: option(args, ['-f', '--file']), dirs: [] },
  unzip: extracts(['-d']),
  cpio: (args) => ({ paths: [], dirs: args.some((a) => /^-[a-zA-Z]*i/.test(a) || a === '--extract') ? ['.'] : [] }),
  // A second operand is where uniq and xxd write.
  'uniq xxd': (args) => ({ paths: operands(args).slice(1, 2), dirs: [] }),
  git: (args) =>
    // A patch names the files it changes inside it: any of them.
    /^(apply|am)$/.test(args[0] ?? '')
      ? { paths: [], dirs: ['.'] }
      : /^(checkout|restore|mv|cp)$/.test(args[0] ?? '')
        ? { paths: operands(args.slice(1)), dirs: operands(args.slice(1)) }
        : { paths: [], dirs: [] },
});
/** The files a writing program's arguments name as what it writes (cp's destination, tee's files, sort -o). */
export const filesWrittenBy = (name: string, args: readonly string[]): string[] =>
  changedBy(name, [...args])?.paths ?? [];

/** In-place editors: only with their in-place option. */
const IN_PLACE = new Set(['sed', 'perl', 'ruby', 'gawk', 'awk']);

/** What a program changes, when it is a writer or an in-place editor given its in-place option. */
function changedBy(name: string, args: string[]): ReturnType<Changed> | undefined {
  if (Object.hasOwn(WRITERS, name)) return WRITERS[name]!(args);
  return IN_PLACE.has(name) && args.some((a) => /^-[a-zA-Z]*i|^--in-place|^inplace$/.test(a)) ? named(args) : undefined;
}

const norm = (cwd: string, p: string): string =>
  posix.normalize(p.startsWith('/') ? p : `${cwd}/${p}`).replace(/(.)\/+$/, '$1');

/** A writer's operand computed at run time or a glob: it may name any file read for the verdict. */
const ANY = '\0any';
/** Interpreters whose inline code (`-c`, `-e`, an awk program, a sqlite dot-command) can write files. */
const INLINE =
  /^(python[\d.]*|pypy\d*|node(js)?|deno|bun|perl|ruby|php|[gmn]?awk|busybox|sqlite3|lua[\d.]*|Rscript|tclsh)$/;
/** An argument that is code rather than a path: it has spaces, quotes, brackets or operators in it. */
const CODE_LIKE = /[\s'"(){};,<>=|]/;
/** Inline code that can change a file: writes, copies, renames, links, redirects, or runs another program. */
const WRITES_HINT =
  /write|copy|\bcp\b|rename|move|\bmv\b|link|open\s*\([^)]*,\s*['"]?[wax+]|>|\.output|dump|save|truncate|system|exec|spawn|popen|`/i;
/** Shells and wrappers whose option value is a command line of its own. */
const SHELLS = /^(sh|bash|dash|zsh|ksh|mksh|ash|fish)$/;
const INNER_LINE: Readonly<Record<string, RegExp>> = { script: /^(-[a-zA-Z]*c|--command)$/, su: /^(-c|--command)$/ };
const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The files read for the verdict that an earlier (or any) command of the line writes: by a redirect (`>`, `>>`,
 * `>|`, `&>`), by a writing program naming it or a directory above it (a computed or glob operand may name any of
 * them), by an interpreter's inline code naming it, or by a command nested in `sh -c`, `script -c`, `find -exec`.
 * A `cd` in the line moves where relative names land: each directory it may be in is tried. Keys as the detector
 * names them.
 */
export function writtenByTheLine(
  root: SyntaxNode,
  cwd: string,
  keys: readonly string[],
  reparse?: ParseBash,
): string[] {
  const files = keys.filter((k) => listedDir(k) === undefined && !k.startsWith('~'));
  if (files.length === 0) return [];
  const targets = new Map(files.map((k) => [norm(cwd, k), k]));
  const hit = new Set<string>();
  const dirs = new Set([cwd]);
  let lostDir = false;
  const vars = new Map<string, string>();
  /** `own`: the command's own operands, which it reads before writing into a directory (`git apply x.patch`). */
  const touch = (word: string, dirToo: boolean, own: readonly string[] = [], gitDir = true): void => {
    const mine = new Set(own.flatMap((o) => [...dirs].map((d) => norm(d, o))));
    // git apply and checkout do not write into the repository's own .git directory, which git reads.
    if (!gitDir) for (const t of targets.keys()) if (/\/\.git(\/|$)/.test(t)) mine.add(t);
    if (word.includes(ANY)) {
      for (const [t, k] of targets) if (!mine.has(t)) hit.add(k);
      return;
    }
    for (const d of dirs) {
      const at = norm(d, word);
      for (const [t, k] of targets)
        if (t === at || (dirToo && !mine.has(t) && t.startsWith(`${at === '/' ? '' : at}/`))) hit.add(k);
    }
    // After a `cd` to a place not known, a name is matched by its last part.
    if (lostDir) for (const [t, k] of targets) if (posix.basename(t) === posix.basename(word)) hit.add(k);
  };
  const mentioned = (text: string): void => {
    for (const [t, k] of targets)
      if (new RegExp(`(^|[^\\w.-])${escapeRe(posix.basename(t))}($|[^\\w-])`).test(text)) hit.add(k);
  };
  const argvWrites = (name: string, args: string[], depth: number): void => {
    const innerOpt = Object.hasOwn(INNER_LINE, name) ? INNER_LINE[name] : undefined;
    if (name === 'cd' || name === 'pushd') {
      const to = args.find((a) => !a.startsWith('-'));
      if (to === undefined || to.includes(ANY) || to.startsWith('~')) lostDir = true;
      else for (const d of [...dirs].slice(0, 8)) dirs.add(norm(d, to));
    } else if (SHELLS.test(name) || innerOpt) {
      const at = args.findIndex((a) => (innerOpt ?? /^-[a-zA-Z]*c$/).test(a));
      const line = at >= 0 ? args[at + 1] : undefined;
      if (line !== undefined) inner(line, depth);
    } else if (name === 'find') {
      let from = -1;
      args.forEach((a, i) => {
        if (/^-(exec|execdir|ok|okdir)$/.test(a)) from = i + 1;
        else if (from >= 0 && (a === ';' || a === '+')) {
          const sub = peel(args.slice(from, i).map((t) => (t === '{}' ? computedWord : literal(t)))).argv;
          if (sub?.name) argvWrites(sub.name, sub.args.map(textOf), depth + 1);
          from = -1;
        }
      });
    } else if (name === 'eval') inner(args.join(' '), depth);
    else {
      if (INLINE.test(name))
        for (const a of args) if (!a.includes(ANY) && CODE_LIKE.test(a) && WRITES_HINT.test(a)) mentioned(a);
      const changed = changedBy(name, args);
      for (const p of changed?.paths ?? []) touch(p, false);
      for (const d of changed?.dirs ?? []) touch(d, true, args, name !== 'git');
    }
  };
  /** Text a shell, eval or an interpreter runs from its input: a command line, or code that may write. */
  const runsText = (name: string, args: string[], text: string, depth: number): void => {
    if (SHELLS.test(name) && !args.some((a) => /^-[a-zA-Z]*c$/.test(a))) inner(text, depth);
    else if (INLINE.test(name) && WRITES_HINT.test(text)) mentioned(text);
  };
  const inner = (line: string, depth: number): void => {
    if (!reparse || depth > 3) mentioned(line);
    else reparse(line, (r) => (r ? visit(r, depth + 1) : mentioned(line)));
  };
  const visit = (node: SyntaxNode, depth: number): void => {
    if (node.type === 'variable_assignment' && node.parent?.type !== 'command') {
      const name = node.childForFieldName('name')?.text;
      const value = node.childForFieldName('value');
      const w = value ? wordOf(value, vars) : literal('');
      if (name && !w.dynamic) vars.set(name, w.text);
      else if (name) vars.delete(name);
    }
    if (node.type === 'file_redirect' && node.children.some((c) => c !== null && /^(>|>>|>\||&>|&>>)$/.test(c.type))) {
      const dest = node.childForFieldName('destination');
      if (dest) {
        const w = wordOf(dest, vars);
        // `> "$LOG"` is common and left alone; a destination computed by a command may be anything.
        if (!w.dynamic) touch(w.text, false);
        else if (w.substitutions.length > 0) touch(ANY, false);
      }
    }
    if (node.type === 'command') {
      const peeled = peel(commandWords(node, vars));
      const argv = peeled.argv;
      // `env -C DIR cmd`, `git -C DIR ...`: the command's relative names land there (tried as well as here).
      let args = argv?.args.map(textOf) ?? [];
      const moved = [peeled.chdir ? textOf(peeled.chdir) : undefined];
      if (argv?.name === 'git') {
        // Read as text, so that a computed `-C` directory holds ANY (and is not known).
        const git = gitCall({ ...argv, args: args.map(literal) });
        moved.push(git.dir);
        args = git.subWord ? [git.subWord, ...git.rest].map((w) => w.text) : [];
      }
      for (const m of moved) if (m !== undefined) argvWrites('cd', [m], depth);
      if (argv?.name) argvWrites(argv.name, args, depth);
      if (argv?.name) for (const text of fedText(node, vars)) runsText(argv.name, args, text, depth);
    }
    for (const c of children(node)) visit(c, depth);
  };
  visit(root, 0);
  return [...hit];
}

/** What a command reads on standard input from the line itself: a here-document or here-string, an echo piped in. */
function fedText(command: SyntaxNode, vars: Vars): string[] {
  const out: string[] = [];
  const here = stdinTextOf(redirectsOf(command));
  if (here !== undefined) out.push(here);
  const element = command.parent?.type === 'redirected_statement' ? command.parent : command;
  const before = element.parent?.type === 'pipeline' ? element.previousNamedSibling : null;
  const upstream = before ? firstCommand(before) : undefined;
  if (before && upstream) {
    const printed = printedText(before, peel(commandWords(upstream, vars)).argv, vars).text;
    if (printed !== undefined) out.push(printed);
  }
  return out;
}

const computedWord: Word = { text: '{}', dynamic: true, pattern: false, substitutions: [] };
const textOf = (w: Word): string => (w.dynamic || w.pattern ? ANY : w.text);
