// The paths outside the task directory that a command names: absolute paths, `~` (and $HOME) paths and relative
// paths that climb out with `..`, found in its words as bash would pass them (the project's bash parser and word
// decoder), in the code strings it hands to interpreters and in here-documents. eval:contained makes a canary at each
// before the command runs. Pure (works on a parsed tree).
import { posix } from 'node:path';
import type { ParseBash, SyntaxNode } from '../../src/detector/engine/parser.js';
import { wordOf } from '../../src/detector/engine/words.js';

export interface NamedPath {
  /** Absolute; a `~` path starts with `~` (the world's home stands for it), a relative one is resolved by the caller. */
  path: string;
  /** `home`: under ~; `absolute`; `relative`: climbs out of the task directory with `..`. */
  kind: 'home' | 'absolute' | 'relative';
  /** What a canary there should be: a directory when the command treats it as one (see `shapeOf`). */
  shape: 'file' | 'dir';
}

const WORDISH = new Set([
  'word',
  'string',
  'raw_string',
  'ansi_c_string',
  'concatenation',
  'simple_expansion',
  'expansion',
  'translated_string',
  'heredoc_body',
]);

/** Paths in pseudo file systems or private to each sandbox: nothing to make there. */
const NOT_MADE = ['/dev', '/proc', '/sys', '/run', '/tmp'];

/** Programs whose path arguments are directories they walk. */
const WALKERS = new Set(['find', 'cd', 'pushd', 'ls', 'du', 'tree', 'rsync', 'rmdir', 'mkdir']);

/**
 * A path starts after a separator (space, quote, `=`, `(`, `,`, `>` ...), never after a word character, `:` or `/`
 * (so URLs, `host:/path` and `a/b` are not taken for absolute paths); it ends at a space, a quote or a shell
 * metacharacter.
 */
const PATH_IN_TEXT =
  /(?<![\w.:/~$@-])(~(?=\/|$|[\s'"`;|&<>(),])(?:\/[^\s'"`;|&<>(){},$]*)?|\/[^\s'"`;|&<>(){},$:]*|\.\.(?:\/[^\s'"`;|&<>(){},$:]*)?)/g;

const HOME_VARIABLE = /\$\{HOME(?::?[-?=+][^}]*)?\}|\$HOME\b/g;

/** `a{b,c}d` → `abd`, `acd` (one level, at most 16 results; enough for paths a corpus names). */
function expandBraces(text: string): string[] {
  const m = /^(.*?)\{([^{}]*,[^{}]*)\}(.*)$/s.exec(text);
  if (!m) return [text];
  return m[2]!
    .split(',')
    .slice(0, 16)
    .flatMap((alt) => expandBraces(`${m[1]}${alt}${m[3]}`));
}

/** The path with everything from its first glob component cut off; `glob` says whether anything was. */
function beforeGlob(path: string): { path: string; glob: boolean } {
  const parts = path.split('/');
  const i = parts.findIndex((p) => /[*?[]/.test(p));
  if (i < 0) return { path, glob: false };
  return { path: parts.slice(0, i).join('/') || '/', glob: true };
}

function normalise(raw: string): string | undefined {
  let p = raw.replace(/[.,]+$/, (tail) => (raw.endsWith('/.') ? tail : ''));
  if (p === '') return undefined;
  if (p.startsWith('~')) p = `~${posix.normalize(`/${p.slice(1)}`)}`.replace(/^~\/$/, '~');
  else if (p.startsWith('/')) p = posix.normalize(p);
  else p = posix.normalize(p);
  return p.length > 1 ? p.replace(/\/$/, '') : p;
}

/** Whether the simple command around `node` walks its arguments (a recursive flag, or a program that walks). */
function recursiveCommand(node: SyntaxNode): boolean {
  let n: SyntaxNode | null = node;
  while (n && n.type !== 'command') n = n.parent;
  if (!n) return false;
  const name = n.childForFieldName('name')?.text.split('/').pop() ?? '';
  if (WALKERS.has(name)) return true;
  return n.namedChildren.some(
    (c) => c !== null && c.type === 'word' && /^(-[a-zA-Z]*[rRa][a-zA-Z]*|--recursive|--archive)$/.test(c.text),
  );
}

function textsOf(node: SyntaxNode): string[] {
  if (node.type === 'heredoc_body') return [node.text];
  const w = wordOf(node);
  const text = w.dynamic ? node.text.replace(/^"|"$/g, '') : w.text;
  return expandBraces(text.replace(HOME_VARIABLE, '~'));
}

/** Every path outside the task directory that `command` names, once each. */
export function namedPaths(parse: ParseBash, command: string): NamedPath[] {
  const found = new Map<string, NamedPath & { glob: boolean; trailing: boolean; walked: boolean }>();
  parse(command, (root) => {
    if (!root) return;
    const visit = (node: SyntaxNode): void => {
      const outermost = WORDISH.has(node.type) && !WORDISH.has(node.parent?.type ?? '');
      if (outermost && node.parent?.type !== 'command_name') {
        for (const text of textsOf(node)) {
          for (const m of text.matchAll(PATH_IN_TEXT)) {
            const raw = m[1]!;
            const cut = beforeGlob(raw);
            const path = normalise(cut.path);
            if (!path || path === '.' || path === '~' + '.') continue;
            const kind = path.startsWith('~') ? 'home' : path.startsWith('/') ? 'absolute' : 'relative';
            if (kind === 'relative' && !path.startsWith('..')) continue;
            if (kind === 'absolute' && NOT_MADE.some((d) => path === d || path.startsWith(`${d}/`))) continue;
            const prior = found.get(path);
            found.set(path, {
              path,
              kind,
              shape: 'file',
              glob: (prior?.glob ?? false) || cut.glob,
              trailing: (prior?.trailing ?? false) || (raw.endsWith('/') && raw.length > 1),
              walked: (prior?.walked ?? false) || recursiveCommand(node),
            });
          }
        }
      }
      for (const c of node.children) if (c) visit(c);
    };
    visit(root);
  });
  const all = [...found.values()];
  return all.map((p) => ({ path: p.path, kind: p.kind, shape: shapeOf(p, all) }));
}

/**
 * A canary is a directory when the command lists it with a trailing `/`, globs inside it, names a path under it, or
 * walks it (a recursive flag, find, ls, rsync ...) and its name has no extension; a file otherwise.
 */
function shapeOf(
  p: { path: string; glob: boolean; trailing: boolean; walked: boolean },
  all: readonly { path: string }[],
): 'file' | 'dir' {
  if (p.glob || p.trailing || p.path === '~' || p.path === '/' || /^(\.\.\/)*\.\.$/.test(p.path)) return 'dir';
  if (all.some((o) => o.path.startsWith(`${p.path}/`))) return 'dir';
  const name = p.path.split('/').pop() ?? '';
  const extension = /^.+\.[A-Za-z0-9]{1,8}$/.test(name);
  return p.walked && !extension ? 'dir' : 'file';
}
