// awk programs (given inline, with -f/-e/-i, or `#!/usr/bin/awk -f`): the commands they run through system(), output
// pipes (`print | "cmd"`), input pipes (`"cmd" | getline`) and coprocesses (`|&`), files they include or write. A
// command built at run time asks. Pure.
import { literal } from '../../engine/words.js';
import { checkWrite } from '../../checks/files.js';
import { shortened, type CheckContext } from '../../checks/types.js';

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', '"': '"', '\\': '\\', '/': '/' };

/**
 * The program with comments dropped, each string literal replaced by `S<i>` (its text in `strings`) and each
 * regular expression literal by `R`, so that `|`, `>` and parentheses inside them are not read as operators.
 */
export function maskAwk(source: string): { masked: string; strings: string[] } {
  const strings: string[] = [];
  let out = '';
  let last = ''; // the last significant character: decides whether `/` starts a regular expression or divides
  for (let i = 0; i < source.length; i += 1) {
    const c = source[i]!;
    if (c === '#') {
      while (i < source.length && source[i] !== '\n') i += 1;
      out += '\n';
      last = '\n';
      continue;
    }
    if (c === '"') {
      let s = '';
      for (i += 1; i < source.length && source[i] !== '"'; i += 1) {
        if (source[i] === '\\' && i + 1 < source.length) s += ESCAPES[source[(i += 1)]!] ?? `\\${source[i]}`;
        else s += source[i];
      }
      strings.push(s);
      out += ` S${strings.length - 1} `;
      last = 'S';
      continue;
    }
    if (c === '/' && (last === '' || /[(,~!{;&|\n:?=]/.test(last))) {
      for (i += 1; i < source.length && source[i] !== '/' && source[i] !== '\n'; i += 1) if (source[i] === '\\') i += 1;
      out += ' R ';
      last = 'R';
      continue;
    }
    out += c;
    if (!/\s/.test(c) || c === '\n') last = c;
  }
  return { masked: out, strings };
}

/** An expression made only of string literals (awk joins adjacent ones): its text, or undefined. */
function literalText(expr: string, strings: readonly string[]): string | undefined {
  const t = expr
    .trim()
    .replace(/^\(+|\)+$/g, '')
    .trim();
  if (!/^(S\d+\s*)+$/.test(t)) return undefined;
  return t
    .split(/\s+/)
    .map((s) => strings[Number(s.slice(1))] ?? '')
    .join('');
}

/**
 * The expression after position `at` (`step` 1), up to the end of the statement or a closing parenthesis; or the one
 * before it (`step` -1), back to a statement boundary or an opening parenthesis.
 */
function expression(masked: string, at: number, step: 1 | -1): string {
  const [open, close] = step === 1 ? ['(', ')'] : [')', '('];
  let depth = 0;
  let i = step === 1 ? at : at - 1;
  for (; i >= 0 && i < masked.length; i += step) {
    const c = masked[i]!;
    if (c === open) depth += 1;
    else if (c === close) {
      if (depth === 0) break;
      depth -= 1;
    } else if (depth === 0 && /[;{}\n]/.test(c)) break;
  }
  return step === 1 ? masked.slice(at, i) : masked.slice(i + 1, at);
}

export function readAwk(source: string, ctx: CheckContext): void {
  const { masked, strings } = maskAwk(source);
  const detail = `awk program: ${shortened(source)}`;
  const run = (expr: string): void => {
    const text = literalText(expr, strings);
    if (text === undefined)
      ctx.add('dynamic-command', `${detail} (a command built at run time: ${expr.trim().slice(0, 60)})`);
    else ctx.script(text);
  };
  for (const m of masked.matchAll(/\|&?/g)) {
    const at = m.index;
    if (masked[at - 1] === '|' || (masked[at + 1] === '|' && m[0] === '|')) continue; // `||`
    const rest = masked.slice(at + m[0].length);
    if (/^\s*getline\b/.test(rest)) run(expression(masked, at, -1));
    else run(expression(masked, at + m[0].length, 1));
  }
  for (const m of masked.matchAll(/\bsystem\s*\(/g)) run(expression(masked, m.index + m[0].length, 1));
  // gawk's @include "file" reads more program text; @load "ext" loads compiled code.
  for (const m of masked.matchAll(/@include\s+S(\d+)/g)) ctx.runsFile(literal(strings[Number(m[1])] ?? ''), 'awk');
  if (/@load\b/.test(masked)) ctx.add('unread-script', `${detail} (@load loads a compiled extension)`);
  // print > "file": a file written (a git hook, a start-up file) is judged like a shell redirect.
  for (const m of masked.matchAll(/\b(?:print|printf)\b[^;{}\n]*?(>>?)\s*S(\d+)/g))
    checkWrite(literal(strings[Number(m[2])] ?? ''), `${detail} (${m[1]} ${strings[Number(m[2])]})`, ctx);
}
