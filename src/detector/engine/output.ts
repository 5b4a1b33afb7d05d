// Where a command's output goes: shown (to the terminal, which the model reads and the run's history keeps) or
// consumed (redirected to a file, piped into a program that uses it, captured into a variable or an argument).
// Filters that print what they read (grep, jq, head, base64, tee) pass it on. Pure (works on a parsed tree).
import { peel } from './argv.js';
import type { SyntaxNode } from './parser.js';
import { names } from './names.js';
import { commandWords, firstCommand, perNode, pipelineChain, redirectsOf } from './syntax.js';

/** Programs whose output is (a transformation of) what they read, so a secret piped through them is still shown. */
const SHOWS_INPUT = new Set(
  names(`cat tac tee head tail less more most bat batcat grep egrep fgrep rg ag jq yq gojq sed gsed awk gawk mawk cut sort
  uniq tr base64 base32 basenc xxd od hexdump column paste fold fmt nl rev strings iconv zcat gunzip col expand unexpand pr`),
);
/** Commands that print their arguments (`echo "$(cat .env)"`). */
const PRINTS_ARGUMENTS = new Set(['echo', 'printf', 'print']);

/** Where standard output is redirected (`> out.txt`, `>> log`, `&> f`), as written; undefined for the terminal. */
export function outputFileOf(node: SyntaxNode): string | undefined {
  for (const r of redirectsOf(node)) {
    if (r.type !== 'file_redirect') continue;
    const op = r.children.find((c) => c !== null && !c.isNamed)?.type ?? '';
    const fd = r.childForFieldName('descriptor')?.text;
    if (!op.includes('>') || (fd !== undefined && fd !== '1' && !op.startsWith('&'))) continue;
    const dest = (r.childForFieldName('destination')?.text ?? '').replace(/^["']|["']$/g, '');
    if (!/^(\/dev\/(stdout|stderr|tty)|&?[12])$/.test(dest)) return dest;
  }
  return undefined;
}

/** An output redirect of standard output to somewhere other than the terminal. */
const redirectsOutput = (node: SyntaxNode): boolean => outputFileOf(node) !== undefined;

/** Where the output of the command at `node` ends up. */
export function outputOf(node: SyntaxNode, depth = 0): 'shown' | 'consumed' {
  if (depth > 8) return 'shown';
  if (redirectsOutput(node)) return 'consumed';
  for (const next of pipelineChain(node).after) if (consumesInput(next)) return 'consumed';
  // Inside $(...): shown only when the command it is an argument of prints it.
  const p = enclosingSubstitution(node);
  if (!p) return 'shown';
  if (p.type === 'process_substitution') return 'consumed';
  let owner: SyntaxNode | null = p.parent;
  while (owner && owner.type !== 'command' && owner.type !== 'variable_assignment') owner = owner.parent;
  if (!owner || owner.type === 'variable_assignment') return 'consumed';
  const name = peel(commandWords(owner)).argv?.name ?? null;
  return name !== null && PRINTS_ARGUMENTS.has(name) ? outputOf(owner, depth + 1) : 'consumed';
}

/** Whether a pipeline element keeps what it reads from the person's view (outputOf asks n² times). */
const consumesInput = perNode((element) => {
  const cmd = firstCommand(element);
  return !cmd || !SHOWS_INPUT.has(peel(commandWords(cmd)).argv?.name ?? '') || redirectsOutput(cmd);
});

/**
 * The nearest `$(...)` or `<(...)` around a node, if any: `a && b && …` nests one list in another, and each command
 * asks, so walking up from each would cost n² steps of n each.
 */
const enclosingSubstitution: (node: SyntaxNode) => SyntaxNode | null = perNode((node) => {
  const parent = node.parent;
  if (!parent || parent.type === 'program') return null;
  const substitution = parent.type === 'process_substitution' || parent.type === 'command_substitution';
  return substitution ? parent : enclosingSubstitution(parent);
});
