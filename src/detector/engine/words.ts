// Turns a shell word's syntax node into the text bash would pass: quotes and backslashes removed, $'...' decoded,
// $HOME as ~, anything computed at run time marked dynamic. Pure (works on a parsed tree).
import type { SyntaxNode } from './parser.js';

export interface Word {
  text: string;
  /** Part of it is known only at run time (a variable, a substitution). */
  dynamic: boolean;
  /** Unquoted glob or brace characters: bash may expand it into something else. */
  pattern: boolean;
  /** Command and process substitutions inside the word. */
  substitutions: SyntaxNode[];
  /** It comes from a variable whose value is known (`X=...; $X`); `split`: unquoted, so bash splits it into words at IFS. */
  expansion?: { text: string; split: boolean };
}

export const literal = (text: string): Word => ({ text, dynamic: false, pattern: false, substitutions: [] });

/** The one-letter escapes C, bash's `$'...'` and Python strings share. */
export const C_ESCAPES: Readonly<Record<string, string>> = {
  n: '\n',
  t: '\t',
  r: '\r',
  a: '\x07',
  b: '\b',
  f: '\f',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
};

const ANSI_ESCAPES: Record<string, string> = { ...C_ESCAPES, e: '\x1b', E: '\x1b', '?': '?' };

/** Decodes the inside of $'...'. */
function decodeAnsiC(body: string): string {
  return body.replace(
    /\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)/gs,
    (all, esc: string) => {
      const head = esc[0]!;
      if (head === 'x' || head === 'u' || head === 'U') return String.fromCodePoint(parseInt(esc.slice(1), 16));
      if (/[0-7]/.test(head)) return String.fromCharCode(parseInt(esc, 8));
      if (head === 'c' && esc.length === 2) return String.fromCharCode(esc.charCodeAt(1) & 31);
      return ANSI_ESCAPES[esc] ?? all;
    },
  );
}

/** An unquoted word: a backslash quotes the next character. */
function unescapeBare(text: string): Word {
  if (!text.includes('\\')) return { text, dynamic: false, pattern: /[*?[{]/.test(text), substitutions: [] };
  let out = '';
  let pattern = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i]!;
    if (c === '\\' && i + 1 < text.length) {
      i += 1;
      if (text[i] !== '\n') out += text[i];
      continue;
    }
    if ('*?[{'.includes(c)) pattern = true;
    out += c;
  }
  return { text: out, dynamic: false, pattern, substitutions: [] };
}

/** Inside double quotes only \\ \" \$ \` and a newline are escapes. */
const unescapeDouble = (text: string): string =>
  text.replace(/\\([\\"$`\n])/g, (_, c: string) => (c === '\n' ? '' : c));

/** Values of variables assigned earlier in the same command line (`D=/dev/sda; dd of=$D`). */
export type Vars = ReadonlyMap<string, string>;
const NO_VARS: Vars = new Map();

function variable(node: SyntaxNode, vars: Vars): Word {
  const name = node.namedChildren.find((c) => c.type === 'variable_name')?.text;
  const plain = node.type === 'simple_expansion' || node.text === `\${${name}}`;
  if (plain && name !== undefined && vars.has(name))
    return { ...literal(vars.get(name)!), expansion: { text: node.text, split: true } };
  if (plain && name === 'HOME') return literal('~');
  if (plain && name === 'PWD') return literal('.');
  return { text: node.text, dynamic: true, pattern: false, substitutions: [] };
}

/** The word that parts written next to each other make (`a"$b"'c'`). */
export function joinWords(parts: Word[], quoted = false): Word {
  const word: Word = {
    text: parts.map((p) => p.text).join(''),
    dynamic: parts.some((p) => p.dynamic),
    pattern: parts.some((p) => p.pattern),
    substitutions: parts.flatMap((p) => p.substitutions),
  };
  const expanded = parts.flatMap((p) => (p.expansion ? [p.expansion] : []));
  if (expanded.length > 0)
    word.expansion = { text: expanded.map((e) => e.text).join(''), split: !quoted && expanded.some((e) => e.split) };
  return word;
}

export function wordOf(node: SyntaxNode, vars: Vars = NO_VARS): Word {
  switch (node.type) {
    case 'word':
    case 'command_name':
      if (node.type === 'command_name' && node.namedChildCount > 0) return wordOf(node.namedChildren[0]!, vars);
      return unescapeBare(node.text);
    case 'number':
      return literal(node.text);
    case 'raw_string':
      return literal(node.text.slice(1, -1));
    case 'ansi_c_string':
      return literal(decodeAnsiC(node.text.slice(2, -1)));
    case 'string':
    case 'translated_string': {
      // The grammar leaves a newline between two pieces of a string out of both: it is taken from the text between.
      const parts: Word[] = [];
      let end = -1;
      for (const c of node.children) {
        if (end >= 0 && c.startIndex > end)
          parts.push(literal(unescapeDouble(node.text.slice(end - node.startIndex, c.startIndex - node.startIndex))));
        end = c.endIndex;
        if (c.isNamed) parts.push(c.type === 'string_content' ? literal(unescapeDouble(c.text)) : wordOf(c, vars));
      }
      return { ...joinWords(parts, true), pattern: false };
    }
    case 'concatenation':
      return joinWords(node.namedChildren.map((c) => wordOf(c, vars)));
    case 'simple_expansion':
    case 'expansion':
      return variable(node, vars);
    case 'command_substitution':
    case 'process_substitution':
      // `$(pwd)` is the current directory, like `$PWD` (a process substitution starts `<(` or `>(`).
      if (/^(\$\(\s*pwd(\s+-[LP])?\s*\)|`\s*pwd(\s+-[LP])?\s*`)$/.test(node.text)) return literal('.');
      return { text: node.text, dynamic: true, pattern: false, substitutions: [node] };
    default:
      return { text: node.text, dynamic: true, pattern: false, substitutions: [] };
  }
}
