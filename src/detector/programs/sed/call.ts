// How a sed command line reads (GNU and BSD): `sed [-n] [-i[SUFFIX]] [-e SCRIPT]... [-f FILE]... [SCRIPT] [FILE...]`,
// combined short options (`-nf x`, `-ne s`, `-Ei`) included. The one reader for every judgement of a sed command
// (sed/checks.ts lists them). Pure.
import type { CheckContext, Io } from '../../checks/types.js';
import type { Argv } from '../../engine/argv.js';
import { resolveLong } from '../../engine/long-options.js';
import { names } from '../../engine/names.js';
import { literal, type Word } from '../../engine/words.js';

/** GNU sed's long options (for their abbreviations). */
const LONG = names(`
  --expression --file --in-place --line-length --quiet --silent --regexp-extended --separate --null-data --posix
  --sandbox --debug --follow-symlinks --unbuffered --zero-terminated --binary
`);

export interface SedCall {
  /** The scripts given (-e, --expression, or the first operand when neither -e nor -f is). */
  scripts: string[];
  /** Files the scripts are read from (-f, --file). */
  scriptFiles: Word[];
  /** The files edited or read. */
  files: Word[];
  /** They are edited in place (-i, -i.bak, --in-place[=SUFFIX]): the files are written. */
  inPlace: boolean;
}

/** Reads a sed command line; `cmd` is sed's argv (its name is not checked). */
export function sedCall(cmd: Argv): SedCall {
  const args = cmd.args;
  const call: SedCall = { scripts: [], scriptFiles: [], files: [], inPlace: false };
  const operands: Word[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const t = args[i]!.text;
    if (t === '--') {
      operands.push(...args.slice(i + 1));
      break;
    }
    if (t.startsWith('--')) {
      const eq = t.indexOf('=');
      const [given, value] = eq < 0 ? [t, undefined] : [t.slice(0, eq), t.slice(eq + 1)];
      // getopt_long: any unambiguous prefix (`--in-pl`, `--expr`) names the option.
      const name = resolveLong(given, LONG) ?? given;
      if (name === '--expression') call.scripts.push(value ?? args[(i += 1)]?.text ?? '');
      else if (name === '--file')
        call.scriptFiles.push(value === undefined ? (args[(i += 1)] ?? literal('')) : { ...args[i]!, text: value });
      else if (name === '--in-place') call.inPlace = true;
      else if (name === '--line-length' && value === undefined) i += 1;
      continue;
    }
    if (t.startsWith('-') && t.length > 1 && !args[i]!.dynamic) {
      for (let j = 1; j < t.length; j += 1) {
        const o = t[j]!;
        // In place: -i[SUFFIX] (GNU, BSD), -I (BSD). -l N takes the rest of the word; -e and -f, it or the next.
        if (o === 'i' || o === 'I') {
          call.inPlace = true;
          // BSD sed: `-i ''` gives the (empty) suffix as a word of its own.
          if (j === t.length - 1 && args[i + 1]?.text === '') i += 1;
          break;
        }
        if (o === 'l') {
          if (j === t.length - 1) i += 1;
          break;
        }
        if (o === 'e' || o === 'f') {
          const value = j < t.length - 1 ? { ...args[i]!, text: t.slice(j + 1) } : args[(i += 1)];
          if (o === 'e') call.scripts.push(value?.text ?? '');
          else if (value) call.scriptFiles.push(value);
          break;
        }
      }
      continue;
    }
    operands.push(args[i]!);
  }
  if (call.scripts.length === 0 && call.scriptFiles.length === 0 && operands[0])
    call.scripts.push(operands.shift()!.text);
  call.files = operands;
  return call;
}

/** A judgement of one sed command (what it writes, runs, tampers with...), kept with its threat class. */
export type SedCheck = (call: SedCall, cmd: Argv, io: Io, ctx: CheckContext) => void;
