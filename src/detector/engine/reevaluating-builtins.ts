// Bash builtins that evaluate their arguments again as code: `let` (arithmetic), names with subscripts (`printf -v`,
// `read`, `mapfile`, `wait -p`, `test -v`, `declare`/`local`/`typeset`/`export`/`readonly`, `unset`), callbacks run as
// commands (`mapfile -C`, `complete -C`, `compgen -C`, `bind -x`), word lists expanded again (`compgen -W`,
// `complete -W`), key bindings that type text (`bind`), history re-run (`fc`) and builtins loaded from a shared
// library (`enable -f`). Pure.
import { parseFlags, type Argv } from './argv.js';
import { arithmeticWord, expandedWordList, nameWord, type ValueContext } from './reevaluation.js';
import type { Word } from './words.js';
import { keyTable, names } from './names.js';

/** A command line given to a builtin to run later (a callback): judged, or asks when computed at run time. */
function callback(w: Word, who: string, ctx: ValueContext): void {
  if (w.dynamic) ctx.computed(w, who);
  else ctx.script(w.text);
}

/** `declare NAME[SUB]=v`, `declare -i n=EXPR`, `declare -n ref=NAME`: names and values that are evaluated. */
export function declarationArgs(words: readonly Word[], ctx: ValueContext): void {
  const o = parseFlags(words);
  for (const w of o.operands) {
    const eq = w.text.indexOf('=');
    const name = eq < 0 ? w : { ...w, text: w.text.slice(0, eq) };
    nameWord(name, 'declare', ctx);
    const bare = /^[A-Za-z_]\w*$/.exec(name.text)?.[0];
    if (o.short.has('i') && bare) ctx.values.integers.add(bare);
    if (eq < 0) continue;
    const value = { ...w, text: w.text.slice(eq + 1) };
    if (o.short.has('i')) arithmeticWord(value, `declare -i ${name.text}`, ctx);
    if (o.short.has('n')) nameWord(value, `declare -n ${name.text}`, ctx);
  }
}

/** What each builtin evaluates again, by name. */
const BUILTINS = keyTable<(args: readonly Word[], ctx: ValueContext, cmd: Argv) => void>({
  let: (args, ctx) => args.forEach((a) => arithmeticWord(a, 'let', ctx)),
  // `printf -v NAME`, `wait -p NAME`: the option's value is a variable name.
  'printf wait': (args, ctx, cmd) => {
    const letter = cmd.name === 'printf' ? 'v' : 'p';
    const name = parseFlags(args, [`-${letter}`]).words.get(`-${letter}`);
    if (name) nameWord(name, `${cmd.name} -${letter}`, ctx);
  },
  read: (args, ctx) => {
    const o = parseFlags(args, names('-a -d -i -n -N -p -t -u'));
    for (const w of [o.words.get('-a'), ...o.operands]) {
      if (!w) continue;
      nameWord(w, 'read', ctx);
      if (!w.dynamic) ctx.values.runtime.add(w.text);
    }
  },
  'mapfile readarray': (args, ctx, cmd) => {
    const o = parseFlags(args, names('-d -n -O -s -u -C -c'));
    const cb = o.words.get('-C');
    if (cb) callback(cb, `${cmd.name} -C`, ctx);
    for (const w of o.operands) nameWord(w, cmd.name!, ctx);
  },
  test: (args, ctx) => args.forEach((a, i) => a.text === '-v' && args[i + 1] && nameWord(args[i + 1]!, 'test -v', ctx)),
  'declare typeset local export readonly': declarationArgs,
  unset: (args, ctx) => parseFlags(args).operands.forEach((a) => nameWord(a, 'unset', ctx)),
  'complete compgen': (args, ctx, cmd) => {
    const o = parseFlags(args, names('-A -G -W -F -C -X -P -S -o -a -b'));
    const cb = o.words.get('-C');
    if (cb) callback(cb, `${cmd.name} -C`, ctx);
    // -W's list is expanded again (-P, -S, -X and -G are used as they are: bash 5.2 runs nothing in them).
    const list = o.words.get('-W');
    if (list) expandedWordList(list, `${cmd.name} -W`, ctx);
  },
  bind,
  fc: (args, ctx, cmd) => {
    if (!parseFlags(args, ['-e']).short.has('l'))
      ctx.add('dynamic-command', `${cmd.written} runs a command from the shell's history, which is not shown here`);
  },
  enable: (args, ctx, cmd) => {
    if (parseFlags(args, ['-f']).words.has('-f'))
      ctx.add('dynamic-command', `${cmd.written} -f loads a shared library into bash as a builtin`);
  },
});

/** Judges a builtin that evaluates its arguments again; names it reads into are set at run time from then on. */
export function reevaluatingBuiltin(cmd: Argv, ctx: ValueContext): void {
  BUILTINS[cmd.name ?? '']?.(cmd.args, ctx, cmd);
}

/** `bind -x 'KEYS: CMD'` runs CMD on those keys; `bind 'KEYS: "text"'` and `bind -f FILE` make keys type text. */
function bind(args: readonly Word[], ctx: ValueContext): void {
  const o = parseFlags(args, names('-m -q -u -r -f -x'));
  const run = o.words.get('-x');
  if (run) {
    const m = /^\s*("(?:\\.|[^"\\])*"|[^:]*):\s*(.*)$/s.exec(run.text);
    const command = m ? m[2]!.replace(/^"(.*)"$/s, '$1') : run.text;
    callback({ ...run, text: command }, 'bind -x', ctx);
  }
  const typed = args.map((a) => a.text).join(' ');
  if (o.words.has('-f') || o.operands.length > 0)
    ctx.add('line-editing', `bind ${typed.slice(0, 80)} changes what keys type`);
}
