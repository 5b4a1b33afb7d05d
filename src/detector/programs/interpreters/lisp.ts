// Lisp programs (emacs --eval/-l/--script, emacsclient --eval, guile, racket, sbcl): the calls that run a shell
// command or a program, delete trees, load more code or evaluate computed code. Arguments that are not string
// literals make the call ask. Pure.
import { literal, type Word } from '../../engine/words.js';
import { shortened, type CheckContext } from '../../checks/types.js';
import { keyTable } from '../../engine/names.js';

type Sexp = { str: string } | { atom: string } | { list: Sexp[] };

/** Reads s-expressions: lists, strings, atoms; quote marks and comments are dropped. */
export function readSexps(source: string): Sexp[] {
  let i = 0;
  const read = (depth: number): Sexp | undefined => {
    while (i < source.length) {
      const c = source[i]!;
      if (/\s/.test(c) || c === "'" || c === '`' || c === ',' || c === '@' || c === '#') i += 1;
      else if (c === ';') while (i < source.length && source[i] !== '\n') i += 1;
      else break;
    }
    if (i >= source.length) return undefined;
    const c = source[i]!;
    if (c === '(' || c === '[') {
      i += 1;
      const items: Sexp[] = [];
      while (i < source.length && source[i] !== ')' && source[i] !== ']') {
        const item = depth < 64 ? read(depth + 1) : undefined;
        if (item === undefined) break;
        items.push(item);
        while (i < source.length && /\s/.test(source[i]!)) i += 1;
      }
      i += 1;
      return { list: items };
    }
    if (c === ')' || c === ']') {
      i += 1;
      return { atom: '' };
    }
    if (c === '"') {
      let s = '';
      for (i += 1; i < source.length && source[i] !== '"'; i += 1) {
        if (source[i] === '\\' && i + 1 < source.length) {
          i += 1;
          s += source[i] === 'n' ? '\n' : source[i] === 't' ? '\t' : source[i];
        } else s += source[i];
      }
      i += 1;
      return { str: s };
    }
    const start = i;
    while (i < source.length && !/[\s()[\]";]/.test(source[i]!)) i += 1;
    return { atom: source.slice(start, i) };
  };
  const out: Sexp[] = [];
  while (i < source.length) {
    const s = read(0);
    if (s === undefined) break;
    out.push(s);
  }
  return out;
}

/** Functions whose first string argument is a shell command line. */
const SHELL_FUNCTIONS =
  /^(shell-command|shell-command-to-string|async-shell-command|call-process-shell-command|process-file-shell-command|start-process-shell-command|start-file-process-shell-command|compile|system|sb-ext:run-shell|uiop:run-program|run-shell-command|process|shell-execute)$/;
/** Functions that run a program with arguments: (call-process PROGRAM INFILE DEST DISPLAY ARGS...) and the like. */
const PROGRAM_FUNCTIONS = keyTable<number>({
  'call-process process-file': 4,
  'call-process-region': 6,
  'start-process start-file-process': 3,
  'process-lines process-lines-ignore-status sb-ext:run-program run-program system*': 1,
});
const LOADERS = /^(load|load-file|load-library|require-file|primitive-load|include)$/;
const EVALUATORS = /^(eval|funcall|apply|eval-expression|read-from-string|eval-string|car-safe)$/;

const text = (s: Sexp | undefined): string | undefined => (s && 'str' in s ? s.str : undefined);

function visit(s: Sexp, ctx: CheckContext, detail: string, depth: number): void {
  if (!('list' in s) || depth > 64) return;
  const [head, ...args] = s.list;
  const name = head && 'atom' in head ? head.atom.replace(/^#'/, '') : '';
  const computed = (what: string): void => ctx.add('dynamic-command', `${detail} (${name}: ${what})`);
  if (SHELL_FUNCTIONS.test(name)) {
    const cmd = text(args[0]);
    if (cmd === undefined) computed('a command built at run time');
    else ctx.script(cmd);
  } else if (Object.hasOwn(PROGRAM_FUNCTIONS, name)) {
    const program = text(args[0]);
    const rest = args.slice(PROGRAM_FUNCTIONS[name]!).flatMap((a) => ('list' in a && a.list.length === 0 ? [] : [a]));
    const words = rest.map(text);
    if (program === undefined || words.some((w) => w === undefined))
      computed('a program or arguments computed at run time');
    else ctx.argv([program, ...(words as string[])].map(literal));
  } else if (name === 'make-process' || name === 'make-pipe-process') {
    const at = args.findIndex((a) => 'atom' in a && a.atom === ':command');
    const list = args[at + 1];
    const items = list && 'list' in list ? list.list.filter((a) => !('atom' in a && a.atom === 'list')) : [];
    const words = items.map(text);
    if (at < 0 || items.length === 0 || words.some((w) => w === undefined)) computed('a command computed at run time');
    else ctx.argv((words as string[]).map(literal));
  } else if (name === 'delete-directory') {
    const path = text(args[0]);
    const recursive = args[1] !== undefined && !('atom' in args[1] && args[1].atom === 'nil');
    if (path === undefined) computed('a directory computed at run time');
    else ctx.argv([literal('rm'), literal(recursive ? '-rf' : '-d'), literal('--'), literal(path)] satisfies Word[]);
  } else if (LOADERS.test(name)) {
    const file = text(args[0]);
    if (file === undefined) computed('a file computed at run time');
    else ctx.runsFile(literal(file), 'elisp');
  } else if (EVALUATORS.test(name) && args.some((a) => !('list' in a) || a.list.length === 0)) {
    // (eval '(...)) of a quoted form is read below; of a variable or a string read at run time, it asks.
    if (args.some((a) => 'atom' in a && a.atom !== '' && !/^(t|nil|lexical-binding)$/.test(a.atom)))
      computed('code computed at run time');
  }
  for (const a of args) visit(a, ctx, detail, depth + 1);
}

export function readLisp(source: string, ctx: CheckContext): void {
  const detail = `lisp program: ${shortened(source)}`;
  for (const s of readSexps(source)) visit(s, ctx, detail, 0);
}
