// Programs that read program text from an option, a file or standard input (awk -f, tclsh, expect -c, emacs
// --eval/-l, guile, sbcl, dc, m4, gnuplot, Rscript, julia, ...): the text is judged in its language, from the
// option, from the file as read where the command runs (like a script run by path), or from standard input. Pure.
import type { Word } from '../../engine/words.js';
import { literal } from '../../engine/words.js';
import { show, stdinIsDynamic, type Check, type CheckContext, type Io } from '../../checks/types.js';
import { optionWord } from '../../engine/long-options.js';
import { keyTable, names } from '../../engine/names.js';
import { judges } from '../../checks/registry.js';

interface ProgramSpec {
  language: string;
  /** Options whose value is program text. */
  code?: string[];
  /** Options whose value is a file of program text. */
  files?: string[];
  /** Other options that take a value (so that it is not read as an operand). */
  values?: readonly string[];
  /** Operands: the first is program text (awk), the first is a program file, all are program files, or data. */
  operands?: 'code' | 'file' | 'files' | 'data';
  /** With no program given, standard input is the program. */
  stdin?: boolean;
  /** An option (without a value) that makes the operands program text (`emacsclient -e EXPR...`). */
  operandsAreCode?: string[];
}

/** By every name a program is installed under (gawk, wish, emacs-nox, ...). */
const SPECS = keyTable<ProgramSpec>({
  'awk gawk mawk nawk goawk original-awk bwk': {
    language: 'awk',
    code: ['-e', '--source'],
    files: ['-f', '--file', '-i', '--include', '-E', '--exec'],
    values: names(`-F -v --assign --field-separator -l --load -W -o --pretty-print -p --profile`),
    operands: 'code',
  },
  'tclsh wish jimsh': { language: 'tcl', operands: 'file', stdin: true, values: ['-encoding'] },
  expect: { language: 'tcl', code: ['-c'], files: ['-f'], operands: 'file', stdin: true, values: ['-D'] },
  'emacs emacs-nox xemacs': {
    language: 'elisp',
    code: ['--eval', '-eval', '--execute', '-execute'],
    files: ['-l', '--load', '-load', '--script', '-script', '-x'],
    values: names(`-f --funcall -funcall --chdir -L --directory --insert -t --terminal -d --display`),
    operands: 'data',
  },
  emacsclient: {
    language: 'elisp',
    values: names(`-s --socket-name -f --server-file -a --alternate-editor -d --display -T --tramp`),
    operands: 'data',
    operandsAreCode: ['-e', '--eval'],
  },
  guile: {
    language: 'lisp',
    code: ['-c'],
    files: ['-l', '-s'],
    values: ['-L', '-C', '-e', '-x'],
    operands: 'file',
    stdin: true,
  },
  racket: {
    language: 'lisp',
    code: ['-e', '--eval'],
    files: ['-f', '--load', '-t', '--require', '-r', '--script'],
    values: ['-l', '--lib', '-S'],
    operands: 'file',
  },
  sbcl: {
    language: 'lisp',
    code: ['--eval'],
    files: ['--load', '--script'],
    values: ['--core', '--dynamic-space-size'],
    operands: 'data',
  },
  clisp: { language: 'lisp', code: ['-x'], files: ['-i'], values: ['-M', '-m', '-L'], operands: 'file' },
  dc: { language: 'dc', code: ['-e', '--expression'], files: ['-f', '--file'], operands: 'files', stdin: true },
  m4: {
    language: 'm4',
    values: names(
      `-D --define -U --undefine -I --include -d --debug -o --error-output -l --arglength -L --nesting-limit -t --trace`,
    ),
    operands: 'files',
    stdin: true,
  },
  gnuplot: { language: 'gnuplot', code: ['-e'], values: ['-c'], operands: 'files', stdin: true },
  Rscript: { language: 'r', code: ['-e', '--expr'], values: ['--default-packages'], operands: 'file', stdin: true },
  R: { language: 'r', code: ['-e'], files: ['-f', '--file'], values: ['--encoding'], operands: 'data', stdin: true },
  julia: {
    language: 'julia',
    code: ['-e', '--eval', '-E', '--print'],
    files: ['-L', '--load'],
    values: ['-p', '--procs', '-t', '--threads', '--project', '-J', '--sysimage', '-O', '--optimize'],
    operands: 'file',
    stdin: true,
  },
});

/** Splits arguments: values of the program's options by option, and operands. */
function parse(args: Word[], spec: ProgramSpec): { values: [string, Word][]; operands: Word[]; flags: Set<string> } {
  const withValue = new Set([...(spec.code ?? []), ...(spec.files ?? []), ...(spec.values ?? [])]);
  const values: [string, Word][] = [];
  const operands: Word[] = [];
  const flags = new Set<string>();
  for (let i = 0; i < args.length; i += 1) {
    const a = args[i]!;
    const t = a.text;
    if (t === '--') {
      operands.push(...args.slice(i + 1));
      break;
    }
    if (!t.startsWith('-') || t === '-' || a.dynamic) {
      operands.push(a);
      continue;
    }
    const eq = t.indexOf('=');
    if (t.startsWith('--') && eq > 0 && withValue.has(t.slice(0, eq))) {
      values.push([t.slice(0, eq), { ...a, text: t.slice(eq + 1) }]);
      continue;
    }
    if (withValue.has(t)) {
      if (args[i + 1]) values.push([t, args[(i += 1)]!]);
      continue;
    }
    // -fFILE, -vNAME=VALUE: a short option with its value attached.
    const short = !t.startsWith('--') ? [...withValue].find((o) => o.length === 2 && t.startsWith(o)) : undefined;
    if (short) values.push([short, { ...a, text: t.slice(2) }]);
    else flags.add(t);
  }
  return { values, operands, flags };
}

/** Program text on standard input: known text is judged; a file (`< x.tcl`) is read; another program's output asks. */
function stdinProgram(cmd: string, io: Io, ctx: CheckContext, language: string): void {
  const text = ctx.knownText(io);
  if (text !== undefined) ctx.code(text, language);
  else if (io.stdinFile && io.upstream.length === 0 && !ctx.substitutionInput(io.stdinFile))
    ctx.runsFile(io.stdinFile, language);
  else if (stdinIsDynamic(io) || io.upstream.length > 0)
    ctx.add('dynamic-command', `${cmd} runs program text another program prints`);
}

function programCheck(spec: ProgramSpec): Check {
  return (cmd, io, ctx) => {
    const { values, operands, flags } = parse(cmd.args, spec);
    const language = spec.language;
    const stdin = (): void => stdinProgram(show(cmd), io, ctx, language);
    const file = (f: Word): void => (f.text === '-' || f.text === '/dev/stdin' ? stdin() : ctx.runsFile(f, language));
    const code = (w: Word, who: string): void =>
      w.dynamic ? ctx.computed(w, who, language) : ctx.code(w.text, language);
    const given = values.some(([opt]) => spec.code?.includes(opt) || spec.files?.includes(opt));
    for (const [opt, value] of values) {
      if (spec.code?.includes(opt)) code(value, `${cmd.written} ${opt}`);
      else if (spec.files?.includes(opt)) file(value);
    }
    if (spec.operandsAreCode?.some((o) => flags.has(o))) {
      for (const o of operands) code(o, cmd.written);
      return;
    }
    const mode = spec.operands ?? 'data';
    if (!given && mode === 'code') {
      if (operands[0]) code(operands[0], cmd.written);
      return;
    }
    if (given || mode === 'data' || mode === 'code') {
      if (!given && spec.stdin && operands.length === 0) stdin();
      return;
    }
    const files = mode === 'file' ? operands.slice(0, 1) : operands;
    for (const f of files) file(f);
    if (files.length === 0 && spec.stdin) stdin();
  };
}

/** sort --compress-program=PROG: sort runs PROG (with -d to decompress) on its temporary files. */
const sort: Check = (cmd, _io, ctx) => {
  cmd.args.forEach((a, i) => {
    const m = optionWord(a.text, '--compress-program');
    const value = !m ? undefined : 'attached' in m ? { ...a, text: m.attached } : cmd.args[i + 1];
    if (!value) return;
    if (value.dynamic) ctx.computed(value, 'sort --compress-program');
    else ctx.argv([value.text.includes('/') ? literal(value.text) : value]);
  });
};

const programs = Object.fromEntries(Object.entries(SPECS).map(([name, spec]) => [name, programCheck(spec)]));
judges(import.meta.url, { ...programs, sort }, { claims: true });
