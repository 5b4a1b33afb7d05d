// Where bash evaluates a value again as code, after the line was parsed: arithmetic (`$((i))`, `(( ))`, `$[ ]`,
// `for ((`, `[[ x -eq y ]]`, `declare -i`, array subscripts, substring offsets) reads a variable's value as an
// expression and expands the subscripts in it (`i='a[$(cmd)]'`); names given to builtins (`printf -v`, `read`,
// `unset`, `declare`, `wait -p`, `test -v`, `${!x}`) are expanded with their subscripts; prompt strings (`${x@P}`,
// PS0/PS1/PS2/PS4) run the command substitutions they hold. A value that holds a command substitution (quoted when
// it was assigned, so it did not run then) or that is known only at run time asks where it is evaluated. Pure.
import type { CheckContext } from '../checks/types.js';
import { readlineStartFile } from './line-editing.js';
import type { SyntaxNode } from './parser.js';
import { named } from './syntax.js';
import { wordOf, type Vars, type Word } from './words.js';

/** A variable set in this line to a value known only at run time. */
export const RUN_TIME = Symbol('run time');

/** What the analysis knows of variables beyond their literal values. */
export class ValueState {
  /** Set in this line to a value known only at run time (`read x`, `x=$(cat f)`). */
  readonly runtime = new Set<string>();
  /** Declared integer (`declare -i n`): every later assignment to it is arithmetic. */
  readonly integers = new Set<string>();
}

export interface ValueContext extends CheckContext {
  /** A variable's literal value set earlier in the line, RUN_TIME, or undefined when the line did not set it. */
  valueOf(name: string): string | typeof RUN_TIME | undefined;
  readonly values: ValueState;
}

/** Command-substitution syntax (not `$((`): bash runs it where it evaluates the text. */
const HOLDS_CODE = /\$\((?!\()|`/;
/** Producers whose output is a number: a variable set from them is inert in arithmetic. */
const NUMERIC =
  /^"?(\$\(\(.*\)\)|\$[#?$!]|\$\{#\w+\}|\$\{?(RANDOM|SECONDS|EPOCHSECONDS|LINENO|BASHPID|PPID|UID|EUID)\}?|\$\(\s*(wc|nproc|expr|id|getconf|stat|date|seq|grep\s+-c)\b[^)]*\))"?$/s;

const short = (t: string): string => (t.length > 60 ? `${t.slice(0, 57)}...` : t);

/** The word's text holds command-substitution syntax of its own (not a substitution that runs when it is expanded). */
export function literalCode(w: Word): boolean {
  let text = w.text;
  for (const s of w.substitutions) text = text.replace(s.text, '');
  return HOLDS_CODE.test(text);
}

/**
 * Why evaluating `text` as an arithmetic expression may run a command: a variable it names (bare or with `$`) holds
 * command-substitution syntax, names one that does, or was set at run time. Undefined when nothing does.
 */
export function arithmeticRisk(text: string, ctx: ValueContext, seen = new Set<string>()): string | undefined {
  for (const m of text.matchAll(/[A-Za-z_]\w*/g)) {
    const name = m[0];
    if (seen.has(name)) continue;
    seen.add(name);
    const value = ctx.valueOf(name);
    if (value === RUN_TIME) return `${name} is set at run time`;
    if (value === undefined) continue;
    if (HOLDS_CODE.test(value)) return `${name} holds ${short(value)}`;
    const deeper = arithmeticRisk(value, ctx, seen);
    if (deeper !== undefined) return `${name} names ${deeper}`;
  }
  return undefined;
}

/** Asks: `where` evaluates `why`; code that can be seen is judged as well (hardline stays hardline). */
function asks(where: string, why: string, ctx: ValueContext, code?: string): void {
  ctx.add('evaluated-value', `${where}: ${why}`);
  if (code !== undefined) ctx.script(`: ${code}`);
}

/** An arithmetic context: asks when a value it reads may run a command. */
export function arithmetic(text: string, where: string, ctx: ValueContext): void {
  const why = arithmeticRisk(text, ctx);
  if (why !== undefined) asks(where, why, ctx);
}

/** An expression given as a word (`let EXPR`, `declare -i n=EXPR`): its own text or the values it names may run one. */
export function arithmeticWord(w: Word, where: string, ctx: ValueContext): void {
  if (literalCode(w)) asks(where, `${short(w.text)} holds a command`, ctx, w.text);
  else arithmetic(w.text, where, ctx);
}

/** A variable name a builtin sets or reads (`printf -v NAME`, `unset NAME`): its subscript is evaluated. */
export function nameWord(w: Word, where: string, ctx: ValueContext): void {
  if (literalCode(w)) return asks(where, `the name ${short(w.text)} holds a command`, ctx, w.text);
  const open = w.text.indexOf('[');
  const head = open < 0 ? w.text : w.text.slice(0, open);
  // The name itself is not evaluated, unless it comes from a variable (`printf -v "$n"`) set at run time.
  const from = setAtRunTime(head, ctx);
  if (from !== undefined) asks(where, `the name comes from ${from}, set at run time`, ctx);
  if (open >= 0) arithmetic(w.text.slice(open), where, ctx);
}

/** The first variable expanded in `text` (`$n`, `${n...}`) that was set at run time. */
function setAtRunTime(text: string, ctx: ValueContext): string | undefined {
  for (const m of text.matchAll(/\$\{?([A-Za-z_]\w*)/g)) if (ctx.valueOf(m[1]!) === RUN_TIME) return m[1]!;
  return undefined;
}

/**
 * `compgen -W LIST`, `complete -W LIST`: bash expands each word of the list again (now, or when a completion runs),
 * so a command substitution in its text runs, and a list computed at run time may hold one.
 */
export function expandedWordList(w: Word, where: string, ctx: ValueContext): void {
  if (literalCode(w)) asks(where, `the word list ${short(w.text)} is expanded again and runs its command`, ctx, w.text);
  else if (w.substitutions.length > 0 || setAtRunTime(w.text, ctx) !== undefined) {
    const why = 'the word list is computed at run time and expanded again, running any command substitution in it';
    asks(where, why, ctx);
  }
}

const PROMPTS = /^(PS0|PS1|PS2|PS4)$/;
/** Variables whose value bash expands (running substitutions) before it reads the file they name. */
const EXPANDED_PATHS = /^(BASH_ENV|ENV)$/;

/** `NAME=VALUE` anywhere (alone, exported, before a command): where bash will evaluate the value later. */
export function evaluatedAssignment(name: string, value: Word, valueText: string, ctx: ValueContext): void {
  if (PROMPTS.test(name)) {
    if (literalCode(value)) asks(name, `the prompt string holds ${short(value.text)}`, ctx, value.text);
    else if (value.substitutions.length > 0 || setAtRunTime(valueText, ctx) !== undefined)
      asks(name, 'the prompt string is computed at run time', ctx);
  }
  if (EXPANDED_PATHS.test(name) && literalCode(value))
    asks(name, `bash expands ${short(value.text)} before reading the file`, ctx, value.text);
  if (ctx.values.integers.has(name)) arithmeticWord(value, `${name} (declared -i)`, ctx);
  const keys = readlineStartFile(name, value);
  if (keys !== undefined) ctx.add('line-editing', keys);
}

/** Remembers whether a variable set outside a command now holds a value known only at run time. */
export function assigned(name: string, value: Word, valueText: string, values: ValueState): void {
  if (value.dynamic && !NUMERIC.test(valueText)) values.runtime.add(name);
  else values.runtime.delete(name);
}

/** `[[ x -eq y ]]`, `[[ -v name ]]`: the operands of arithmetic tests are expressions, `-v` takes a name. */
function conditional(node: SyntaxNode, vars: Vars, ctx: ValueContext): void {
  const arithmeticTests = node.text.startsWith('[[');
  const visit = (n: SyntaxNode): void => {
    if (n.type === 'command_substitution' || n.type === 'process_substitution') return;
    const op = n.children.find((c) => c?.type === 'test_operator')?.text;
    if (n.type === 'binary_expression' && arithmeticTests && op && /^-(eq|ne|lt|le|gt|ge)$/.test(op))
      arithmetic(n.text, `[[ ${op} ]]`, ctx);
    if (n.type === 'unary_expression' && op === '-v') {
      const operand = named(n).find((c) => c.type !== 'test_operator');
      if (operand) nameWord(wordOf(operand, vars), 'test -v', ctx);
    }
    for (const c of named(n)) visit(c);
  };
  visit(node);
}

/** A node of the tree where bash evaluates values: arithmetic, subscripts, `${x@P}`, `${!x}`, offsets, tests. */
export function evaluatedNode(node: SyntaxNode, vars: Vars, ctx: ValueContext): void {
  switch (node.type) {
    case 'arithmetic_expansion':
      arithmetic(node.text, node.text.startsWith('$[') ? '$[ ]' : '$(( ))', ctx);
      return;
    case 'compound_statement':
      if (node.text.startsWith('((')) arithmetic(node.text, '(( ))', ctx);
      return;
    case 'c_style_for_statement': {
      const header = named(node).filter((c) => c.type !== 'do_group' && c.type !== 'compound_statement');
      arithmetic(header.map((c) => c.text).join(';'), 'for (( ))', ctx);
      return;
    }
    case 'subscript':
      arithmetic(node.text.slice(node.text.indexOf('[')), 'an array subscript', ctx);
      return;
    case 'array':
      // `a=([SUB]=v ...)`: each subscript of an indexed array is an expression.
      for (const c of named(node)) {
        const sub = /^\[([^\]]*)\]=/.exec(c.text);
        if (sub) arithmetic(sub[1]!, 'an array subscript', ctx);
      }
      return;
    case 'test_command':
      conditional(node, vars, ctx);
      return;
    case 'expansion':
      expansion(node.text, ctx);
  }
}

function expansion(text: string, ctx: ValueContext): void {
  const prompt = /^\$\{([A-Za-z_]\w*|[@*]|\d+)(?:\[[^\]]*\])?@P\}$/.exec(text);
  if (prompt) {
    // Expanded as a prompt string, the value runs the command substitutions it holds.
    const value = /^[A-Za-z_]/.test(prompt[1]!) ? ctx.valueOf(prompt[1]!) : RUN_TIME;
    if (value === RUN_TIME) asks('${...@P}', 'the prompt string is set at run time', ctx);
    else if (value !== undefined && HOLDS_CODE.test(value))
      asks('${...@P}', `the prompt string holds ${short(value)}`, ctx, value);
    return;
  }
  // `${!x}`: the value of x is a name, expanded with its subscript (`${!x[@]}`, `${!x*}` only list names).
  const indirect = /^\$\{!([A-Za-z_]\w*)(?![\w*@[])/.exec(text);
  if (indirect) {
    const value = ctx.valueOf(indirect[1]!);
    if (value === RUN_TIME) asks('${!...}', `${indirect[1]!} is set at run time`, ctx);
    else if (value !== undefined && HOLDS_CODE.test(value))
      asks('${!...}', `${indirect[1]!} holds ${short(value)}`, ctx, value);
    else if (value !== undefined && value.includes('[')) arithmetic(value.slice(value.indexOf('[')), '${!...}', ctx);
    return;
  }
  const offset = /^\$\{[A-Za-z_]\w*(?:\[[^\]]*\])?:(?![-=?+])(.*)\}$/s.exec(text);
  if (offset) arithmetic(offset[1]!, 'a substring offset', ctx);
}
