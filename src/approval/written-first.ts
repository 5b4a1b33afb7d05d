// A file the verdict was reached on, changed by the same command line before it runs: `cp payload.txt ok.sh; sh
// ok.sh` judged ok.sh as it was on disk, not as the line leaves it. Pure (works on a parsed tree).
import { posix } from 'node:path';
import { peel } from './argv.js';
import type { SyntaxNode } from './parser.js';
import { commandWords, named as children } from './syntax.js';
import { listedDir } from './scripts.js';
import { wordOf } from './words.js';

/** What a writing program changes, from its arguments (options and operands, as written). */
type Changed = (args: string[]) => { paths: string[]; dirs: string[] };

const operands = (args: string[]): string[] => {
  const i = args.indexOf('--');
  return i >= 0 ? args.slice(i + 1) : args.filter((a) => !a.startsWith('-'));
};
/** The value of an option given as `-o v`, `-ov`, `--output v` or `--output=v`. */
const option = (args: string[], short: string[], long: string[]): string[] => {
  const out: string[] = [];
  args.forEach((a, i) => {
    for (const s of short) {
      if (a === s && args[i + 1] !== undefined) out.push(args[i + 1]!);
      else if (a.startsWith(s) && a.length > s.length && !a.startsWith('--')) out.push(a.slice(s.length));
    }
    for (const l of long) {
      if (a === l && args[i + 1] !== undefined) out.push(args[i + 1]!);
      else if (a.startsWith(`${l}=`)) out.push(a.slice(l.length + 1));
    }
  });
  return out;
};
/** The destination of cp, mv, install, ln, rsync: `-t DIR`, else the last operand. */
const destination: Changed = (args) => {
  const t = option(args, ['-t'], ['--target-directory']);
  const ops = operands(args);
  return { paths: t.length > 0 ? [] : ops.slice(-1), dirs: t.length > 0 ? t : ops.slice(-1) };
};
const named: Changed = (args) => ({ paths: operands(args), dirs: [] });
const outputOption: Changed = (args) => ({ paths: option(args, ['-o', '-O'], ['--output', '-out']), dirs: [] });
/** An archive extracted into `-C`/`-d`/`-o` DIR, or the current directory. */
const extracts =
  (dirOption: string[]): Changed =>
  (args) => {
    const into = option(args, dirOption, ['--directory']);
    return { paths: [], dirs: into.length > 0 ? into : ['.'] };
  };

const WRITERS: Readonly<Record<string, Changed>> = {
  cp: destination,
  mv: destination,
  install: destination,
  ln: destination,
  link: destination,
  rsync: destination,
  dd: (args) => ({ paths: args.filter((a) => a.startsWith('of=')).map((a) => a.slice(3)), dirs: [] }),
  tee: named,
  truncate: named,
  ed: named,
  ex: named,
  vi: named,
  vim: named,
  nano: named,
  emacs: named,
  sort: outputOption,
  curl: outputOption,
  wget: outputOption,
  openssl: outputOption,
  iconv: outputOption,
  patch: (args) => ({
    paths: [...operands(args).slice(0, 1), ...option(args, ['-o'], ['--output'])],
    dirs: operands(args).length === 0 ? ['.'] : [],
  }),
  tar: (args) =>
    args.some((a) => /^-?[a-zA-Z]*x/.test(a) || a === '--extract' || a === '--get')
      ? extracts(['-C'])(args)
      : { paths: option(args, ['-f'], ['--file']), dirs: [] },
  unzip: extracts(['-d']),
  cpio: (args) =>
    args.some((a) => /^-[a-zA-Z]*i/.test(a) || a === '--extract')
      ? { paths: [], dirs: ['.'] }
      : { paths: [], dirs: [] },
  git: (args) =>
    /^(checkout|restore|apply|mv|cp)$/.test(args[0] ?? '')
      ? { paths: operands(args.slice(1)), dirs: operands(args.slice(1)) }
      : { paths: [], dirs: [] },
};
/** In-place editors: only with their in-place option. */
const IN_PLACE = new Set(['sed', 'perl', 'ruby', 'gawk', 'awk']);

const norm = (cwd: string, p: string): string =>
  posix.normalize(p.startsWith('/') ? p : `${cwd}/${p}`).replace(/(.)\/+$/, '$1');

/** The path a word names. */
const pathsOf = (text: string): string[] => [text];

/**
 * The files read for the verdict that an earlier (or any) command of the line writes: by a redirect (`>`, `>>`,
 * `>|`, `&>`), or by a writing program naming it or a directory above it. Keys as the detector names them.
 */
export function writtenByTheLine(root: SyntaxNode, cwd: string, keys: readonly string[]): string[] {
  const files = keys.filter((k) => listedDir(k) === undefined && !k.startsWith('~'));
  if (files.length === 0) return [];
  const targets = new Map(files.map((k) => [norm(cwd, k), k]));
  const hit = new Set<string>();
  const touch = (word: string, dirToo: boolean): void => {
    for (const p of dirToo ? [word] : pathsOf(word)) {
      const at = norm(cwd, p);
      for (const [t, k] of targets) if (t === at || (dirToo && t.startsWith(`${at === '/' ? '' : at}/`))) hit.add(k);
    }
  };
  const visit = (node: SyntaxNode): void => {
    if (node.type === 'file_redirect' && node.children.some((c) => c !== null && /^(>|>>|>\||&>|&>>)$/.test(c.type))) {
      const dest = node.childForFieldName('destination');
      if (dest) {
        const w = wordOf(dest);
        if (!w.dynamic) touch(w.text, false);
      }
    }
    if (node.type === 'command') {
      const argv = peel(commandWords(node)).argv;
      const name = argv?.name ?? '';
      const args = (argv?.args ?? []).filter((a) => !a.dynamic).map((a) => a.text);
      const changed =
        WRITERS[name]?.(args) ??
        (IN_PLACE.has(name) && args.some((a) => /^-[a-zA-Z]*i|^--in-place|^inplace$/.test(a))
          ? named(args)
          : undefined);
      for (const p of changed?.paths ?? []) touch(p, false);
      for (const d of changed?.dirs ?? []) touch(d, true);
    }
    for (const c of children(node)) visit(c);
  };
  visit(root);
  return [...hit];
}
