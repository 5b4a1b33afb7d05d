// Where a command's standard input comes from when its own `<` and here-documents do not say: descriptors named
// explicitly (`sh 0<f`), redirects on the groups, subshells, loops and functions around it (`{ sh; } < f`), and
// descriptors an earlier `exec` opened (`exec 3<f; sh <&3`, `exec <f; sh`). Pure (works on a parsed tree).
import type { SyntaxNode } from './parser.js';
import { DESCRIPTOR_WORD, named, redirectsIn } from './syntax.js';
import { wordOf, type Vars, type Word } from './words.js';

/** What a descriptor reads: a file, known text, or something only known at run time. */
export type Source = { file: Word } | { text: string } | { unknown: string };

/** Open descriptors by number (`3`) or by variable (`$fd`, from `exec {fd}<f`); 0 absent: the inherited input. */
export type Fds = Map<string, Source>;

/** The descriptor a redirect applies to (`N` or `$name`), with the default for its operator. */
function descriptorOf(r: SyntaxNode, owner: SyntaxNode | undefined, op: string): string {
  const own = r.children.find((c) => c?.type === 'file_descriptor')?.text;
  const written = own ?? (owner ? named(owner).find((c) => c.endIndex === r.startIndex)?.text : undefined);
  if (written !== undefined && DESCRIPTOR_WORD.test(written))
    return written.startsWith('{') ? `$${written.slice(1, -1)}` : written;
  return /^(<|<&|<&-|<<|<<-|<<<)$/.test(op) || r.type !== 'file_redirect' ? '0' : '1';
}

/** Applies one redirect to the table of descriptors, as bash does when it sets the command up. */
export function applyRedirect(r: SyntaxNode, fds: Fds, owner: SyntaxNode | undefined, vars?: Vars): void {
  const op = r.children.find((c) => c !== null && !c.isNamed)?.type ?? '';
  const fd = descriptorOf(r, owner, op);
  const dest = r.childForFieldName('destination');
  if (r.type === 'heredoc_redirect') fds.set(fd, { text: named(r).find((c) => c.type === 'heredoc_body')?.text ?? '' });
  else if (r.type === 'herestring_redirect') {
    const w = named(r).find((c) => c.type !== 'file_descriptor');
    fds.set(fd, { text: w ? wordOf(w, vars).text : '' });
  } else if (r.type !== 'file_redirect') return;
  else if (op === '<&-' || op === '>&-') fds.set(fd, { text: '' });
  else if (op === '<&' || (op === '>&' && fd !== '1' && fd !== '2')) {
    // `<&3`: a copy of descriptor 3; `<&$fd` names it by variable. An unknown one is read at run time.
    const from = dest?.type === 'number' || dest?.type === 'simple_expansion' ? dest.text : undefined;
    const source = from === undefined ? undefined : fds.get(from);
    if (source) fds.set(fd, source);
    else if (from !== '0' || fd !== '0') fds.set(fd, { unknown: r.text });
  } else if (op === '<' && dest) fds.set(fd, { file: wordOf(dest, vars) });
  else if (fd !== '1' && fd !== '2') fds.set(fd, { unknown: r.text });
}

const BOUNDARIES = new Set(['command_substitution', 'process_substitution', 'heredoc_redirect', 'program']);

/**
 * Redirects of the statements around a command that reach its standard input, outermost first: those of a
 * redirected group, subshell, loop or function body it sits in, up to a pipe that feeds it instead.
 */
export function enclosingRedirects(node: SyntaxNode): SyntaxNode[][] {
  const levels: SyntaxNode[][] = [];
  let child = node;
  for (let p = node.parent; p && !BOUNDARIES.has(p.type); child = p, p = p.parent) {
    if (p.type === 'pipeline') {
      const elements = named(p).filter((c) => !c.type.endsWith('_redirect'));
      // `a | b < f`: the grammar hangs b's redirects on the whole pipeline; bash gives them to its last command.
      const outer = p.parent?.type === 'redirected_statement' ? p.parent : undefined;
      if (outer?.childForFieldName('body')?.id === p.id && elements.at(-1)?.id === child.id)
        levels.unshift(redirectsIn(outer));
      // A later element of a pipeline reads the pipe; the first one reads what the pipeline's own input is.
      if (elements[0]?.id !== child.id) break;
      continue;
    }
    const body = p.childForFieldName('body');
    const redirected = p.type === 'redirected_statement' && child.id !== node.id && body?.type !== 'pipeline';
    if (body?.id === child.id && (redirected || p.type === 'function_definition')) levels.unshift(redirectsIn(p));
  }
  return levels;
}
