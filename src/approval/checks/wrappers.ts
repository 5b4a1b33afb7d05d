// Wrappers whose own options matter: `nsenter --target 1` enters the host's namespaces; `systemd-run` (a timer or a
// transient service) running a program from a directory anyone can write to runs whatever is put there later. The
// wrapped command itself is judged by its own check. Pure.
import type { Argv } from '../argv.js';
import type { Word } from '../words.js';
import { checkPrivilege } from './privilege.js';
import type { CheckContext, Io } from './types.js';

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

/** `words` is the command as written, `argv` what runs once the wrappers are peeled. */
export function checkWrappers(words: Word[], argv: Argv | null, ctx: CheckContext, io?: Io): void {
  nsenter(words, ctx);
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
