// Standard-library modules that `python -m` runs and that execute code or a program named in their own arguments:
// timeit (its statements and -s setup are Python code), cProfile/profile/trace/pdb (a script, -m module or -c
// code), runpy (a module), code (an interactive console reading standard input), doctest (a .py file imported, a
// text file's `>>>` examples), pydoc (a file it documents is imported). Pure.
import type { CheckContext } from '../../checks/types.js';
import { resolveLong } from '../../engine/long-options.js';
import type { Word } from '../../engine/words.js';

/** What getopt gives: values by option, flags, and the operands. */
interface Options {
  values: [string, Word][];
  flags: string[];
  operands: Word[];
}

/** Python getopt: options (with values for `valued`) until the first operand; returns values by option and operands. */
function getopt(args: readonly Word[], valued: readonly string[], stopAtOperand = true): Options {
  const values: [string, Word][] = [];
  const flags: string[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const a = args[i]!;
    const t = a.text;
    if (t === '--') return { values, flags, operands: args.slice(i + 1) };
    if (!t.startsWith('-') || t === '-' || a.dynamic) {
      if (stopAtOperand) return { values, flags, operands: args.slice(i) };
      continue;
    }
    if (t.startsWith('--')) {
      const eq = t.indexOf('=');
      // getopt, optparse and argparse all take an unambiguous prefix of a long option (`--set` for `--setup`).
      const given = eq < 0 ? t : t.slice(0, eq);
      const name = resolveLong(given, [...valued, '--module']) ?? given;
      if (eq >= 0) values.push([name, { ...a, text: t.slice(eq + 1) }]);
      else if (valued.includes(name) && args[i + 1]) values.push([name, args[(i += 1)]!]);
      else flags.push(name);
      continue;
    }
    for (let j = 1; j < t.length; j += 1) {
      const opt = `-${t[j]}`;
      if (!valued.includes(opt)) {
        flags.push(opt);
        continue;
      }
      if (j < t.length - 1) values.push([opt, { ...a, text: t.slice(j + 1) }]);
      else if (args[i + 1]) values.push([opt, args[(i += 1)]!]);
      break;
    }
  }
  return { values, flags, operands: [] };
}

const valuesOf = (values: [string, Word][], ...names: string[]): Word[] =>
  values.filter(([n]) => names.includes(n)).map(([, v]) => v);

/** Python code given in arguments: judged like `python -c`; computed at run time, it asks. */
function pythonCode(words: readonly Word[], who: string, ctx: CheckContext): void {
  const dynamic = words.find((w) => w.dynamic);
  if (dynamic) ctx.computed(dynamic, who, 'python');
  else if (words.length > 0) ctx.code(words.map((w) => w.text).join('\n'), 'python');
}

/** What a profiler or debugger runs: `-m MODULE ARGS` (that module, again), `-c CODE`, or a script by path. */
function target(opts: Options, who: string, ctx: CheckContext, run: (args: readonly Word[]) => void): void {
  const code = valuesOf(opts.values, '-c');
  if (who !== 'pdb' && code.length > 0) pythonCode(code, `python -m ${who} -c`, ctx);
  if (opts.flags.includes('-m') || opts.flags.includes('--module')) run(opts.operands);
  else if (opts.operands[0]) ctx.runsFile(opts.operands[0], 'python');
}

/** pdb commands that take no Python (moving, breaking, listing); anything else is, or evaluates, Python. */
const PDB_COMMANDS =
  /^(h|help|w|where|bt|d|down|u|up|b|break|tbreak|cl|clear|disable|enable|ignore|condition|commands|s|step|n|next|unt|until|r|return|c|cont|continue|j|jump|l|list|ll|longlist|a|args|q|quit|exit|restart|run|retval|rv|end|undisplay|unalias)$/;

/** The Python a pdb command runs: `!stmt`, `p expr`, `pp expr`, `display expr`, or a line pdb does not know. */
function pdbStatement(w: Word): Word[] {
  const t = w.text.trim();
  if (t.startsWith('!')) return [{ ...w, text: t.slice(1) }];
  const m = /^(\w+)\s*(.*)$/s.exec(t);
  if (m && /^(p|pp|display|whatis|interact)$/.test(m[1]!)) return m[2] ? [{ ...w, text: m[2] }] : [];
  if (m && PDB_COMMANDS.test(m[1]!)) return [];
  return t === '' ? [] : [{ ...w, text: t }];
}

/**
 * `python -m MODULE ARGS` for modules that run code from ARGS. `run` judges `python -m` with the given words (a
 * profiler's `-m other ...`); `stdin` judges standard input as a Python program (`python -m code`). Returns whether
 * the module is one of these.
 */
export function pythonModuleRuns(
  module: string,
  args: readonly Word[],
  ctx: CheckContext,
  run: (args: readonly Word[]) => void,
  stdin: () => void,
): boolean {
  switch (module) {
    case 'timeit': {
      // The statements and every -s setup run as Python code.
      const o = getopt(args, ['-n', '--number', '-r', '--repeat', '-s', '--setup', '-u', '--unit']);
      pythonCode([...valuesOf(o.values, '-s', '--setup'), ...o.operands], 'python -m timeit', ctx);
      return true;
    }
    case 'cProfile':
    case 'profile':
    case 'trace': {
      const valued =
        module === 'trace'
          ? ['-f', '--file', '-C', '--coverdir', '--ignore-module', '--ignore-dir']
          : ['-o', '--outfile', '-s', '--sort'];
      // `-m` takes no value here: the first operand is the module.
      target(getopt(args, valued), module, ctx, run);
      return true;
    }
    case 'pdb': {
      // pdb's -c commands are debugger commands, and a debugger command runs any Python statement.
      const o = getopt(args, ['-c', '--command']);
      pythonCode(valuesOf(o.values, '-c', '--command').flatMap(pdbStatement), 'python -m pdb -c', ctx);
      target(o, module, ctx, run);
      return true;
    }
    case 'runpy':
      // runpy's own entry point runs the named module as __main__.
      if (args[0]) run(args);
      return true;
    case 'code':
      stdin();
      return true;
    case 'doctest': {
      // A .py file is imported (its module level runs) before its docstrings' examples; any other file's `>>>`
      // examples are Python, run in order.
      const o = getopt(args, ['-o', '--option']);
      for (const f of o.operands) ctx.runsFile(f, f.dynamic || /\.py$/.test(f.text) ? 'python' : 'python-doctest');
      return true;
    }
    case 'pydoc': {
      // pydoc imports what it documents; an operand naming a file of the project (with a `/` or `.py`) is imported
      // as a module, its module level run. -k/-p/-b/-n search, serve or browse without importing a file.
      const o = getopt(args, ['-k', '-p', '-n']);
      if (o.values.length === 0 && !o.flags.includes('-b'))
        for (const f of o.operands)
          if (f.dynamic || f.text.includes('/') || /\.py$/.test(f.text)) ctx.runsFile(f, 'python');
      return true;
    }
    case 'site':
      // `python -m site` only prints paths; the sitecustomize/usercustomize it imports are loaded like any python run.
      return true;
    default:
      return false;
  }
}
