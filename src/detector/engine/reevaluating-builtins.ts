// Bash builtins that evaluate their arguments again as code: `let` (arithmetic), names with subscripts (`printf -v`,
// `read`, `mapfile`, `wait -p`, `test -v`, `declare`/`local`/`typeset`/`export`/`readonly`, `unset`), callbacks run as
// commands (`mapfile -C`, `complete -C`, `compgen -C`, `bind -x`), word lists expanded again (`compgen -W`,
// `complete -W`), key bindings that type text (`bind`), history re-run (`fc`) and builtins loaded from a shared
// library (`enable -f`). Pure.
import type { Argv } from './argv.js';
import { arithmeticWord, expandedWordList, nameWord, type ValueContext } from './reevaluation.js';
import type { Word } from './words.js';

interface Options {
  /** Each option given, with its value (the flag word itself for options without one). */
  values: Map<string, Word>;
  operands: Word[];
}

/** Reads `-x`, `-xVALUE`, `-x VALUE` and combined flags (`-rt 5`): `takesValue` lists the letters with a value. */
function options(args: readonly Word[], takesValue: string): Options {
  const out: Options = { values: new Map(), operands: [] };
  for (let i = 0; i < args.length; i += 1) {
    const a = args[i]!;
    if (a.text === '--') {
      out.operands.push(...args.slice(i + 1));
      break;
    }
    if (!a.text.startsWith('-') || a.text.length < 2 || a.dynamic) {
      out.operands.push(a);
      continue;
    }
    for (let j = 1; j < a.text.length; j += 1) {
      const letter = a.text[j]!;
      if (!takesValue.includes(letter)) {
        out.values.set(letter, a);
        continue;
      }
      const rest = a.text.slice(j + 1);
      const value = rest !== '' ? { ...a, text: rest } : args[(i += 1)];
      if (value) out.values.set(letter, value);
      break;
    }
  }
  return out;
}

/** A command line given to a builtin to run later (a callback): judged, or asks when computed at run time. */
function callback(w: Word, who: string, ctx: ValueContext): void {
  if (w.dynamic) ctx.computed(w, who);
  else ctx.script(w.text);
}

/** `declare NAME[SUB]=v`, `declare -i n=EXPR`, `declare -n ref=NAME`: names and values that are evaluated. */
export function declarationArgs(words: readonly Word[], ctx: ValueContext): void {
  const o = options(words, '');
  for (const w of o.operands) {
    const eq = w.text.indexOf('=');
    const name = eq < 0 ? w : { ...w, text: w.text.slice(0, eq) };
    nameWord(name, 'declare', ctx);
    const bare = /^[A-Za-z_]\w*$/.exec(name.text)?.[0];
    if (o.values.has('i') && bare) ctx.values.integers.add(bare);
    if (eq < 0) continue;
    const value = { ...w, text: w.text.slice(eq + 1) };
    if (o.values.has('i')) arithmeticWord(value, `declare -i ${name.text}`, ctx);
    if (o.values.has('n')) nameWord(value, `declare -n ${name.text}`, ctx);
  }
}

/** Judges a builtin that evaluates its arguments again; names it reads into are set at run time from then on. */
export function reevaluatingBuiltin(cmd: Argv, ctx: ValueContext): void {
  const args = cmd.args;
  switch (cmd.name) {
    case 'let':
      for (const a of args) arithmeticWord(a, 'let', ctx);
      return;
    case 'printf':
    case 'wait': {
      // `printf -v NAME`, `wait -p NAME`: the option's value is a variable name.
      const letter = cmd.name === 'printf' ? 'v' : 'p';
      const name = options(args, letter).values.get(letter);
      if (name) nameWord(name, `${cmd.name} -${letter}`, ctx);
      return;
    }
    case 'read': {
      const o = options(args, 'adinNptu');
      for (const w of [o.values.get('a'), ...o.operands]) {
        if (!w) continue;
        nameWord(w, 'read', ctx);
        if (!w.dynamic) ctx.values.runtime.add(w.text);
      }
      return;
    }
    case 'mapfile':
    case 'readarray': {
      const o = options(args, 'dnOsuCc');
      const cb = o.values.get('C');
      if (cb) callback(cb, `${cmd.name} -C`, ctx);
      for (const w of o.operands) nameWord(w, cmd.name, ctx);
      return;
    }
    case 'test':
      args.forEach((a, i) => a.text === '-v' && args[i + 1] && nameWord(args[i + 1]!, 'test -v', ctx));
      return;
    case 'declare':
    case 'typeset':
    case 'local':
    case 'export':
    case 'readonly':
      declarationArgs(args, ctx);
      return;
    case 'unset':
      for (const a of options(args, '').operands) nameWord(a, 'unset', ctx);
      return;
    case 'complete':
    case 'compgen': {
      const o = options(args, 'AGWFCXPSoab');
      const cb = o.values.get('C');
      if (cb) callback(cb, `${cmd.name} -C`, ctx);
      // -W's list is expanded again (-P, -S, -X and -G are used as they are: bash 5.2 runs nothing in them).
      const list = o.values.get('W');
      if (list) expandedWordList(list, `${cmd.name} -W`, ctx);
      return;
    }
    case 'bind':
      bind(args, ctx);
      return;
    case 'fc':
      if (!options(args, 'e').values.has('l'))
        ctx.add('dynamic-command', `${cmd.written} runs a command from the shell's history, which is not shown here`);
      return;
    case 'enable':
      if (options(args, 'f').values.has('f'))
        ctx.add('dynamic-command', `${cmd.written} -f loads a shared library into bash as a builtin`);
  }
}

/** `bind -x 'KEYS: CMD'` runs CMD on those keys; `bind 'KEYS: "text"'` and `bind -f FILE` make keys type text. */
function bind(args: readonly Word[], ctx: ValueContext): void {
  const o = options(args, 'mqurfx');
  const run = o.values.get('x');
  if (run) {
    const m = /^\s*("(?:\\.|[^"\\])*"|[^:]*):\s*(.*)$/s.exec(run.text);
    const command = m ? m[2]!.replace(/^"(.*)"$/s, '$1') : run.text;
    callback({ ...run, text: command }, 'bind -x', ctx);
  }
  const typed = args.map((a) => a.text).join(' ');
  if (o.values.has('f') || o.operands.length > 0)
    ctx.add('line-editing', `bind ${typed.slice(0, 80)} changes what keys type`);
}
