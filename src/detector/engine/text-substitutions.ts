// Command substitutions the bash grammar leaves as plain text, which bash runs all the same: backticks and `$(...)`
// in the operand of a `${...}` operator (`${x:-`cmd`}`, `${HOME#$(cmd)}`, `${HOME/`cmd /`}`) and backticks in the
// body of a here-document whose delimiter is unquoted, and backticks escaped inside backticks. Pure.
import { named } from './syntax.js';
import type { SyntaxNode } from './parser.js';

/** Parts of a text the grammar parsed, and that are visited as nodes of their own. */
const PARSED = /^(command_substitution|process_substitution|expansion|simple_expansion)$/;

/** The command lines of the substitutions in `node`'s text that the grammar did not parse as substitutions. */
export function substitutionsInText(node: SyntaxNode): string[] {
  if (!node.text.includes('`') && !node.text.includes('$(')) return [];
  // `\`...\`` inside backticks is a substitution of its own, which the grammar reads as escaped text.
  if (node.type === 'command_substitution') return /^`.*\\`/s.test(node.text) ? substitutions(node.text) : [];
  if (node.type === 'heredoc_body') {
    const start = node.parent?.children.find((c) => c?.type === 'heredoc_start')?.text ?? '';
    if (/['"\\]/.test(start)) return []; // a quoted delimiter: the body is literal text
  }
  let text = node.text;
  for (const child of named(node)) {
    if (!PARSED.test(child.type)) continue;
    const [from, to] = [child.startIndex - node.startIndex, child.endIndex - node.startIndex];
    text = text.slice(0, from) + ' '.repeat(to - from) + text.slice(to);
  }
  return node.type === 'expansion' ? substitutions(text.slice(2)) : substitutions(text);
}

/** The insides of `...` (its escapes \$ \` \\ undone) and of $(...) (parentheses balanced) in `text`. */
function substitutions(text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (c === '\\') i += 1;
    else if (c === '`') {
      let inner = '';
      for (i += 1; i < text.length && text[i] !== '`'; i += 1)
        inner += text[i] === '\\' && /[$`\\]/.test(text[i + 1] ?? '') ? text[(i += 1)] : text[i];
      out.push(inner);
    } else if (c === '$' && text[i + 1] === '(' && text[i + 2] !== '(') {
      let depth = 0;
      const from = i + 2;
      for (i += 1; i < text.length; i += 1) {
        if (text[i] === '(') depth += 1;
        else if (text[i] === ')' && --depth === 0) break;
      }
      out.push(text.slice(from, i));
    }
  }
  return out;
}
