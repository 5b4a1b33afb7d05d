// Reading the bash syntax tree: the words of a command, its redirects, what earlier pipeline elements print,
// and where a command sits in a pipeline. Pure (works on a parsed tree).
import { peel, type Argv } from './argv.js';
import { names } from './names.js';
import { expandBraces } from '../programs/loaders/glob.js';
import type { SyntaxNode } from './parser.js';
import { C_ESCAPES, literal, wordOf, type Vars, type Word } from './words.js';
import type { WriteMode } from '../checks/traces.js';

export const named = (node: SyntaxNode): readonly SyntaxNode[] => node.namedChildren;

/** Words bash reads as a descriptor number or variable when written against a redirect (`0<f`, `{fd}<f`). */
export const DESCRIPTOR_WORD = /^(\d+|\{[A-Za-z_]\w*\})$/;

/** The words of a `command` node: its name and arguments, without assignments and redirects. */
export function commandWords(node: SyntaxNode, vars?: Vars): Word[] {
  const parts: SyntaxNode[] = [];
  const redirects = redirectsOf(node);
  for (const child of named(node)) {
    if (child.type === 'variable_assignment' || child.type.endsWith('_redirect') || child.type === 'comment') continue;
    // `sh 0<f`: the grammar reads the descriptor as an argument; bash reads it as part of the redirect.
    if (DESCRIPTOR_WORD.test(child.text) && /^(number|word|concatenation)$/.test(child.type)) {
      if (redirects.some((r) => r.startIndex === child.endIndex)) continue;
    }
    parts.push(child);
  }
  const carried = redirects.flatMap(redirectArguments);
  if (carried.length > 0) {
    parts.push(...carried);
    parts.sort((a, b) => a.startIndex - b.startIndex);
  }
  const words = parts.map((p): [number, Word] => [p.startIndex, wordOf(p, vars)]);
  // `cat - <<EOF`: the grammar drops a lone `-` written before a here-document; bash gives it to the command.
  const st = node.parent;
  if (st?.type === 'redirected_statement' && st.children[0]?.id === node.id && redirects.some(isHeredoc))
    for (const [i, c] of st.children.entries())
      if (
        i > 0 &&
        /^\s*-\s*$/.test(st.text.slice(st.children[i - 1]!.endIndex - st.startIndex, c.startIndex - st.startIndex))
      )
        words.push([c.startIndex - 1, literal('-')]);
  return words.sort((a, b) => a[0] - b[0]).flatMap(([, w]) => braceExpanded(w));
}

const isHeredoc = (r: SyntaxNode): boolean => r.type === 'heredoc_redirect';

/** bash expands `{a,b}` and `{1..3}` into words of their own (`git {push,--force} origin`); past 64, it stays one. */
function braceExpanded(word: Word): Word[] {
  if (!word.pattern || word.dynamic || !word.text.includes('{')) return [word];
  const texts = expandBraces(word.text);
  if (!texts || texts.length === 1) return [word];
  return texts.map((text) => ({ ...word, text, pattern: /[*?[]/.test(text) }));
}

/**
 * The command's own arguments that the grammar puts in a redirect: it reads the words after a redirect's target as
 * more targets (`rm 2>&1 -rf ~`, `git push >/dev/null --force`) and those after `<<EOF` as the here-document's;
 * bash gives a redirect one target and the other words to the command.
 */
function redirectArguments(r: SyntaxNode): SyntaxNode[] {
  if (r.type === 'file_redirect') {
    // `>&-` and `<&-` close a descriptor and take no target: every word after them is an argument.
    const closes = r.children.some((c) => c.type === '>&-' || c.type === '<&-');
    return r.childrenForFieldName('destination').slice(closes ? 0 : 1) as SyntaxNode[];
  }
  if (r.type === 'heredoc_redirect') return r.childrenForFieldName('argument') as SyntaxNode[];
  return [];
}

/** The redirects a node itself holds. */
export const redirectsIn = (n: SyntaxNode): SyntaxNode[] => named(n).filter((c) => c.type.endsWith('_redirect'));

/** Redirects that apply to a command: its own, and those of a redirected_statement wrapping it. */
export function redirectsOf(node: SyntaxNode): SyntaxNode[] {
  // `a && b >f`, `a | b 2>&1 -x`: the grammar wraps the list or pipeline; bash gives the redirect to its last command.
  let el = node;
  while (/^(list|pipeline)$/.test(el.parent?.type ?? '') && el.parent!.lastNamedChild?.id === el.id) el = el.parent!;
  const parent = el.parent;
  const wrapped = parent?.type === 'redirected_statement' && parent.childForFieldName('body')?.id === el.id;
  return wrapped ? [...redirectsIn(node), ...redirectsIn(parent)] : redirectsIn(node);
}

/** Backslash escapes of `echo -e` and printf formats. */
function unescapePrintf(text: string): string {
  return text.replace(
    /\\(n|t|r|\\|x[0-9a-fA-F]{1,2}|0[0-7]{0,3})/g,
    (_, e: string) => C_ESCAPES[e] ?? String.fromCharCode(parseInt(e.slice(1) || '0', e[0] === 'x' ? 16 : 8)),
  );
}

/** printf FORMAT ARGS...: %s and %b take arguments (the format repeats while arguments remain), %% is a percent sign. */
function renderPrintf(args: string[]): string {
  const [format = '', ...rest] = args;
  let out = '';
  let i = 0;
  do {
    out += unescapePrintf(format).replace(/%(%|[-0-9.]*[sbdq])/g, (m, k: string) =>
      k === '%' ? '%' : (rest[i++] ?? ''),
    );
  } while (i < rest.length && /%[-0-9.]*[sbdq]/.test(format));
  return out;
}

interface Printed {
  text?: string;
  /** It prints something computed at run time. */
  dynamic?: boolean;
}

/** What an upstream pipeline element prints, when that is known: echo, printf, cat <<EOF, or a { group; } of those. */
export function printedText(element: SyntaxNode, argv: Argv | null, vars?: Vars): Printed {
  if (element.type === 'compound_statement' || element.type === 'subshell') {
    const parts = named(element)
      .filter((c) => c.type === 'command')
      .map((c) => {
        const a = peel(commandWords(c, vars)).argv;
        // `(crontab -l; echo JOB) | crontab -`: the jobs already installed stay as they are; the echoed ones are new.
        if (a?.name === 'crontab' && a.args.length === 1 && a.args[0]!.text === '-l')
          return { text: '# the crontab already installed' };
        return printedText(c, a, vars);
      });
    if (parts.length === 0) return {};
    if (parts.some((p) => p.dynamic)) return { dynamic: true };
    return parts.every((p) => p.text !== undefined) ? { text: parts.map((p) => p.text).join('\n') } : {};
  }
  if (!argv) return {};
  if (argv.name === 'echo' || argv.name === 'printf') {
    if (argv.args.some((a) => a.dynamic)) return { dynamic: true };
    if (argv.name === 'printf') return { text: renderPrintf(argv.args.map((a) => a.text)) };
    const flag = (a: Word): boolean => /^-[neE]+$/.test(a.text);
    const words = argv.args.filter((a) => !flag(a)).map((a) => a.text);
    const escapes = argv.args.some((a) => flag(a) && a.text.includes('e'));
    return { text: escapes ? unescapePrintf(words.join(' ')) : words.join(' ') };
  }
  if (argv.name === 'cat' && argv.args.length === 0) {
    const cmd = element.type === 'command' ? element : named(element).find((c) => c.type === 'command');
    return { text: cmd ? stdinTextOf(redirectsOf(cmd)) : undefined };
  }
  return {};
}

export function stdinTextOf(redirects: SyntaxNode[]): string | undefined {
  for (const r of redirects) {
    if (r.type === 'heredoc_redirect') return named(r).find((c) => c.type === 'heredoc_body')?.text ?? '';
    if (r.type === 'herestring_redirect') {
      const w = named(r)[0];
      return w ? wordOf(w).text : '';
    }
  }
  return undefined;
}

export function firstCommand(element: SyntaxNode): SyntaxNode | undefined {
  if (element.type === 'command') return element;
  for (const c of named(element)) {
    const found = firstCommand(c);
    if (found) return found;
  }
  return undefined;
}

/** `compute` remembered per node: asked for every command of a long line, it costs n, not n². */
export function perNode<T>(compute: (node: SyntaxNode) => T): (node: SyntaxNode) => T {
  const known = new WeakMap<SyntaxNode, T>();
  return (node) => {
    let value = known.get(node);
    if (value === undefined && !known.has(node)) known.set(node, (value = compute(node)));
    return value as T;
  };
}

/** The elements of a pipeline, with nested pipelines (`a | b 2>&1 | c` parses as one inside another) flattened. */
export const pipelineLeaves: (pipeline: SyntaxNode) => SyntaxNode[] = perNode((pipeline) =>
  named(pipeline).flatMap((el) => {
    const body = el.type === 'redirected_statement' ? el.childForFieldName('body') : null;
    if (el.type === 'pipeline') return pipelineLeaves(el);
    if (body?.type === 'pipeline') return pipelineLeaves(body);
    return el.type.endsWith('_redirect') ? [] : [el];
  }),
);

/** Compound commands whose commands read the standard input the compound command is given. */
const PASSES_INPUT = new Set(
  names(`subshell compound_statement if_statement elif_clause else_clause case_statement case_item while_statement
  for_statement do_group list negated_command`),
);

/**
 * The pipeline elements that run before this command and feed its input, also where the command sits inside a
 * compound element (`curl … | (sh)`, `| { sh; }`, `| if …; then sh; fi`). `cat <<EOF | sh` parses with the
 * pipeline inside the here-document's redirect: there the command owning the here-document comes first.
 */
export function pipelineChain(node: SyntaxNode): { before: SyntaxNode[]; after: SyntaxNode[] } {
  let element: SyntaxNode = node;
  let outer: SyntaxNode | null = null;
  for (let p = node.parent; p; p = p.parent) {
    // `tee >(sh)`, `curl -o >(sh) URL`: what the owner writes to the substitution is this command's input.
    if (!outer && p.type === 'process_substitution' && p.text.startsWith('>(')) {
      let owner = p.parent;
      while (owner && owner.type !== 'command' && owner.type !== 'redirected_statement') owner = owner.parent;
      if (owner?.type === 'redirected_statement') owner = owner.childForFieldName('body');
      return owner ? { before: [...pipelineChain(owner).before, owner], after: [] } : { before: [], after: [] };
    }
    if (p.type === 'pipeline') outer = p;
    else if (p.type === 'redirected_statement') {
      if (p.childForFieldName('body')?.id !== element.id) break;
    } else if (outer || !PASSES_INPUT.has(p.type)) break;
    element = p;
  }
  if (!outer) return { before: [], after: [] };
  const leaves = pipelineLeaves(outer);
  const at = leaves.findIndex((l) => l.startIndex <= node.startIndex && node.endIndex <= l.endIndex);
  const before = leaves.slice(0, Math.max(at, 0));
  const after = at < 0 ? [] : leaves.slice(at + 1);
  if (outer.parent?.type === 'heredoc_redirect' && outer.parent.parent?.type === 'redirected_statement') {
    const owner = outer.parent.parent.childForFieldName('body');
    if (owner) before.unshift(owner);
  }
  return { before, after };
}

/** An assignment word of a declaration (`local x=$y`) as bash passes it: `NAME=value`. */
export function declaredWord(node: SyntaxNode, vars: ReadonlyMap<string, string>): Word {
  if (node.type !== 'variable_assignment') return wordOf(node, vars);
  const name = node.childForFieldName('name')?.text ?? '';
  const valueNode = node.childForFieldName('value');
  const value = valueNode ? wordOf(valueNode, vars) : literal('');
  return { ...value, text: `${name}=${value.text}` };
}

/** A redirect appends (`>>`), empties the file (`> f`, `: > f`, `echo > f`, `cat /dev/null > f`) or writes output. */
export function writeMode(op: string, owner: Argv | null, printed: string | undefined): WriteMode {
  if (op.includes('>>')) return 'append';
  const empty =
    owner === null ||
    owner.name === ':' ||
    owner.name === 'true' ||
    printed?.trim() === '' ||
    (owner.name === 'cat' && owner.args.length > 0 && owner.args.every((a) => a.text === '/dev/null'));
  return empty ? 'replace' : 'output';
}

/** The command a redirect belongs to: the command it sits in, or the body of its redirected_statement. */
export function redirectOwner(redirect: SyntaxNode): SyntaxNode | undefined {
  const parent = redirect.parent;
  const owner = parent?.type === 'redirected_statement' ? parent.childForFieldName('body') : parent;
  return owner?.type === 'command' ? owner : undefined;
}
