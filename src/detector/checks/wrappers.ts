// Wrappers whose own options matter: `nsenter --target 1` enters the host's namespaces; `systemd-run` (a timer or a
// transient service) running a program from a directory anyone can write to runs whatever is put there later. The
// wrapped command itself is judged by its own check. Pure.
import { LD_SO, type Argv } from '../engine/argv.js';
import { optionValues } from '../programs/loaders/preloads.js';
import type { Word } from '../engine/words.js';
import { checkAssignment } from './identity.js';
import { checkPrivilege } from './privilege.js';
import type { CheckContext, Io } from './types.js';
import { names } from '../engine/names.js';

/** Directories anyone can write to. */
export const SHARED_DIR = /^(\/tmp|\/var\/tmp|\/dev\/shm)\//;

/**
 * nsenter --target 1: the namespaces of PID 1, the host's own when run from a privileged container or as root.
 * nsenter is a wrapper (what it runs is judged as a command), so its own options are read from the words before.
 */
function nsenter(words: Word[], ctx: CheckContext): void {
  const at = words.findIndex((w) => /(^|\/)nsenter$/.test(w.text));
  if (at < 0) return;
  const w: string[] = [];
  for (const word of words.slice(at + 1)) {
    if (!word.text.startsWith('-') && !/^\d+$/.test(word.text)) break;
    w.push(word.text);
  }
  const target = w.findIndex((t) => t === '-t' || t === '--target');
  if ((target >= 0 && w[target + 1] === '1') || w.some((t) => t === '-t1' || t === '--target=1'))
    ctx.add('container-escape', `nsenter ${w.join(' ')} (the namespaces of PID 1)`);
}

/** The options a wrapper at `at` gives before the command it runs (up to its first operand). */
function ownOptions(words: Word[], at: number, valueOpts: readonly string[]): Word[] {
  const out: Word[] = [];
  for (let i = at + 1; i < words.length; i += 1) {
    const t = words[i]!.text;
    if (t === '--' || !t.startsWith('-')) break;
    out.push(words[i]!);
    if (valueOpts.includes(t) && words[i + 1]) out.push(words[(i += 1)]!);
  }
  return out;
}

/**
 * The dynamic loader run as a program: `--preload LIB` and `--audit LIB` load code into the program as LD_PRELOAD and
 * LD_AUDIT do, `--library-path DIRS` is judged like LD_LIBRARY_PATH.
 */
function dynamicLoader(words: Word[], ctx: CheckContext): void {
  const at = words.findIndex((w) => !w.dynamic && LD_SO.test(w.text.slice(w.text.lastIndexOf('/') + 1)));
  if (at < 0) return;
  const opts = ownOptions(words, at, ['--library-path', '--preload', '--audit', '--argv0', '--inhibit-rpath']);
  const loader = words[at]!.text;
  for (const opt of ['--preload', '--audit'])
    for (const v of optionValues(opts, [opt], false))
      ctx.add('hijack-path', `${loader} ${opt} ${v.text} (loads a library into the program, as LD_PRELOAD does)`);
  for (const v of optionValues(opts, ['--library-path'], false)) checkAssignment('LD_LIBRARY_PATH', v, ctx);
}

/** strace/ltrace -o '|CMD' or -o '!CMD': the trace is piped to a shell command line. */
function tracePipe(words: Word[], ctx: CheckContext): void {
  const at = words.findIndex((w) => /(^|\/)(strace|ltrace)$/.test(w.text));
  if (at < 0) return;
  const opts = ownOptions(words, at, names(`-o --output -e -p -s -u -E -P -a -b -I -S -X -O`));
  for (const v of optionValues(opts, ['-o', '--output'])) {
    if (!/^[|!]/.test(v.text)) continue;
    if (v.dynamic) ctx.computed(v, `${words[at]!.text} -o`);
    else ctx.script(v.text.slice(1));
  }
}

/** `words` is the command as written, `argv` what runs once the wrappers are peeled. */
export function checkWrappers(words: Word[], argv: Argv | null, ctx: CheckContext, io: Io): void {
  nsenter(words, ctx);
  dynamicLoader(words, ctx);
  tracePipe(words, ctx);
  checkPrivilege(words, argv, io, ctx);
  const scheduler = words.findIndex((w) => /(^|\/)systemd-run$/.test(w.text));
  // A timer that fires again and again (on a calendar, at every boot, after each run): persistence.
  const recurring = words
    .slice(scheduler + 1)
    .some((w) => /^--on-(calendar|boot|startup|unit-active|unit-inactive|clock-change|timezone-change)\b/.test(w.text));
  if (scheduler >= 0 && recurring) ctx.add('persistence', `systemd-run ... ${argv?.written ?? ''} (a recurring timer)`);
  if (scheduler >= 0 && argv && SHARED_DIR.test(argv.written))
    ctx.add('schedule-unchecked', `systemd-run ... ${argv.written} (a program in a directory anyone can write to)`);
}
