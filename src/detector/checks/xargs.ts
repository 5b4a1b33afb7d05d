// `xargs INTERPRETER`: xargs appends what it reads to the interpreter's arguments, so the data can name the program
// (`xargs sh < list.txt`, `cat list | xargs python3`). Judged as the commands xargs builds when the data is literal
// in the line, else as an interpreter given an operand computed at run time. Pure.
import type { Argv } from '../engine/argv.js';
import { literal, type Word } from '../engine/words.js';
import { runsCode } from './exec.js';
import type { CheckContext, Io } from './types.js';

/** Literal data split into more arguments than this is not judged argument by argument: it asks. */
const MAX_ITEMS = 64;

const COMPUTED: Word = { text: '$XARGS_INPUT', dynamic: true, pattern: false, substitutions: [] };

/** xargs's own options, read from the words before the command it runs. */
function xargsOptions(before: Word[]): { replace: boolean; file: boolean; delimiter?: string } | undefined {
  const at = before.findIndex((w) => /(^|\/)xargs$/.test(w.text));
  if (at < 0) return undefined;
  const opts = before.slice(at + 1).map((w) => w.text);
  const delimiter = opts.some((t) => t === '-0' || t === '--null')
    ? '\0'
    : (opts.find((_, i) => opts[i - 1] === '-d') ?? opts.find((t) => t.startsWith('--delimiter='))?.slice(12));
  return {
    replace: opts.some((t) => /^(-I|-i|--replace)/.test(t)),
    file: opts.some((t) => /^(-a|--arg-file)/.test(t)),
    ...(delimiter !== undefined ? { delimiter: delimiter.replace(/^\\n$/, '\n').replace(/^\\t$/, '\t') } : {}),
  };
}

/**
 * The replacement string of `xargs -I R` / `-IR` / `-i[R]` / `--replace[=R]` (BSD `-J R` too): what in the command's
 * arguments xargs swaps for each item it reads. Undefined without one.
 */
export function xargsReplacement(words: Word[], argv: Argv): string | undefined {
  const before = words.slice(0, words.length - argv.args.length - 1).map((w) => w.text);
  const at = before.findIndex((t) => /(^|\/)xargs$/.test(t));
  if (at < 0) return undefined;
  let found: string | undefined;
  before.slice(at + 1).forEach((t, i, opts) => {
    if (t === '-I' || t === '-J') found = opts[i + 1] ?? found;
    else if (/^-[IJ]./.test(t)) found = t.slice(2);
    else if (t === '-i' || t === '--replace') found = '{}';
    else if (/^-i./.test(t)) found = t.slice(2);
    else if (t.startsWith('--replace=')) found = t.slice(10) || '{}';
  });
  return found;
}

/**
 * Judges `xargs [opts] INTERPRETER ARGS` as the interpreter run with the items xargs reads; true when it did (the
 * interpreter's own judgment with xargs's input as its standard input is then not what runs: xargs gives it none).
 */
export function xargsInterpreter(words: Word[], argv: Argv, io: Io, ctx: CheckContext): boolean {
  if (!argv.viaXargs || !runsCode(argv.name)) return false;
  const opts = xargsOptions(words.slice(0, words.length - argv.args.length - 1));
  // `xargs -I{} sh -c '... {}'`, `xargs sh -c`: the items are the script (judged where -I and -c are read).
  if (!opts || opts.replace || argv.args.at(-1)?.text === '-c') return false;
  const command = [literal(argv.written), ...argv.args];
  const items = knownItems(opts, io, ctx);
  if (items === undefined || items.length > MAX_ITEMS) {
    ctx.argv([...command, COMPUTED], { upstream: [] });
    return true;
  }
  // Split into several runs (-n, -L) each item may come first: each is judged as the first, and all together.
  ctx.argv([...command, ...items.map(literal)], { upstream: [] });
  for (const item of items.slice(1)) ctx.argv([...command, literal(item)], { upstream: [] });
  return true;
}

/** The items xargs reads when they are literal in the line, split at its delimiter; undefined otherwise. */
function knownItems(opts: { file: boolean; delimiter?: string }, io: Io, ctx: CheckContext): string[] | undefined {
  const text = opts.file ? undefined : ctx.knownText(io);
  return text?.split(opts.delimiter ?? /\s+/).filter((t) => t !== '' && (opts.delimiter !== undefined || t.trim()));
}

/**
 * `echo -rf ~ | xargs rm`: a command xargs runs (an interpreter is judged by xargsInterpreter) is judged once more with
 * the items xargs adds to its arguments, when they are literal (the first MAX_ITEMS of them).
 */
export function xargsKnownItems(words: Word[], argv: Argv, io: Io, ctx: CheckContext): void {
  if (!argv.viaXargs || runsCode(argv.name)) return;
  const opts = xargsOptions(words.slice(0, words.length - argv.args.length - 1));
  if (!opts || opts.replace) return;
  const items = knownItems(opts, io, ctx)?.slice(0, MAX_ITEMS) ?? [];
  if (items.length > 0) ctx.argv([literal(argv.written), ...argv.args, ...items.map(literal)], { upstream: [] });
}
