// Programs that run a shell on data the line feeds them: `script` (its -c command line, else $SHELL reading standard
// input), GNU `parallel` with no command (each input line is a command), `coproc INTERPRETER` (its input is whatever
// the line later writes to the coprocess). Judged as the shell given that data. Pure.
import type { Argv } from '../engine/argv.js';
import { literal } from '../engine/words.js';
import { PARALLEL_VALUES, REPLACEMENT, runsCode } from './exec.js';
import type { CheckContext, Io } from './types.js';

/** `script`'s options that take a value (util-linux). */
const SCRIPT_VALUES = /^(-[BEIOTmo]|--(log-in|log-out|log-io|log-timing|logging-format|echo|output-limit))$/;
const ARG_SEPARATORS = /^(:::|::::|:::\+|::::\+)$/;

/** `script [opts] [file]`: -c CMD runs CMD in a shell, else an interactive shell reads standard input. */
function script(argv: Argv, io: Io, ctx: CheckContext): void {
  const args = argv.args.map((a) => a.text);
  for (let i = 0; i < args.length; i += 1) {
    const t = args[i]!;
    if (t === '--') break;
    if (t.startsWith('--command=')) return ctx.script(t.slice(10), io);
    if (t === '--command' || /^-[a-zA-Z]*c$/.test(t)) return ctx.script(args[i + 1] ?? '', io);
    if (/^-[a-zA-Z]*c./.test(t) && !t.startsWith('--')) return ctx.script(t.slice(t.indexOf('c') + 1), io);
    if (SCRIPT_VALUES.test(t)) i += 1;
  }
  ctx.argv([literal('sh')], io);
}

/** `parallel [opts] [command] [::: args | :::: files]`: without a command, each input item is a command line. */
function parallel(argv: Argv, io: Io, ctx: CheckContext): boolean {
  const args = argv.args;
  const files: string[] = [];
  let i = 0;
  for (; i < args.length; i += 1) {
    const t = args[i]!.text;
    if (ARG_SEPARATORS.test(t) || !t.startsWith('-')) break;
    if (t === '-a' || t === '--arg-file') files.push(args[(i += 1)]?.text ?? '');
    else if (t.startsWith('--arg-file=')) files.push(t.slice(11));
    else if (/^-a./.test(t)) files.push(t.slice(2));
    else if (PARALLEL_VALUES.includes(t)) i += 1;
  }
  // A command made only of replacement strings (`{}`, `{1} {2}`) is the items themselves; another is judged in exec.ts.
  while (i < args.length && args[i]!.text.replace(REPLACEMENT, '') === '' && args[i]!.text !== '') i += 1;
  if (i < args.length && !ARG_SEPARATORS.test(args[i]!.text)) return false;
  // No command: the items are the commands, alone or joined (`-N2 {1} {2} ::: rm -rf ::: /`). `:::: FILE` and
  // `-a FILE` read them from files, `::: A B` from the line.
  let mode = '';
  const items: string[] = [];
  for (; i < args.length; i += 1) {
    const t = args[i]!.text;
    if (ARG_SEPARATORS.test(t)) mode = t;
    else if (mode.startsWith('::::')) files.push(t);
    else items.push(args[i]!.dynamic ? '$PARALLEL_ITEM' : t);
  }
  for (const f of files) ctx.argv([literal('sh'), literal(f)], { upstream: [] });
  for (const item of items.length > 1 ? [...items, items.join(' ')] : items) ctx.script(item);
  if (files.length === 0 && items.length === 0) ctx.argv([literal('sh')], io);
  if (items.some((t) => t.startsWith('$'))) ctx.add('dynamic-command', 'parallel runs items made at run time');
  return true;
}

/** `coproc INTERPRETER`: what it runs is written to it later (`>&${COPROC[1]}`), which is not judged: it asks. */
function coproc(argv: Argv, ctx: CheckContext): void {
  // `coproc NAME { cmd; }`: the grammar gives the group's first words to coproc; the name and brace are not run.
  const named = argv.args[1] !== undefined && /^[({]$/.test(argv.args[1].text);
  const words = argv.args.slice(named ? 2 : 0).filter((w, i) => !(i === 0 && /^[({]$/.test(w.text)));
  // `coproc X=1 cmd`: assignments before the command are settings, not the command.
  while (words[0] !== undefined && /^[A-Za-z_]\w*=/.test(words[0].text)) words.shift();
  const inner = words[0];
  if (inner === undefined) return;
  const rest = words.slice(1).filter((w) => !/^[;)}]$/.test(w.text));
  ctx.argv([inner, ...rest], { upstream: [{ argv: null, dynamic: true }] });
  // A shell or interpreter without a script or code operand reads its program from the coprocess's input.
  if (
    runsCode(inner.text.replace(/^.*\//, '')) &&
    rest.every((a) => a.text.startsWith('-') && !/^-[a-zA-Z]*[ce]$/.test(a.text))
  )
    ctx.add('dynamic-command', `coproc ${inner.text} runs what the line writes to it`);
}

/** True when the command was one of these and has been judged. */
export function fedShell(argv: Argv, io: Io, ctx: CheckContext): boolean {
  if (argv.name === 'script') script(argv, io, ctx);
  else if (argv.name === 'parallel') return parallel(argv, io, ctx);
  else if (argv.name === 'coproc') coproc(argv, ctx);
  else return false;
  return true;
}
