// Erasing traces: shell history (history -c, set +o history, HISTFILE=/dev/null, writing over or deleting a history
// file), system logs and login records (truncating, deleting or vacuuming what is under /var/log, the journal),
// audit rules. Appending to a log is not erasing it. Pure.
import type { Word } from '../engine/words.js';
import { when, whenArg, type CheckContext } from './types.js';
import { judges } from './registry.js';

/** History files live in the home directory (a project's own `.history` folder is not the shell's). */
const HISTORY_FILE =
  /^(~|\$HOME|\$\{HOME\}|\/home\/[^/]+|\/root|\/Users\/[^/]+)\/(.*\/)?(\.[\w-]*_?history|\.lesshst|\.viminfo|fish_history)$/;
const SYSTEM_LOG = /^\/(var\/log(\/|$)|(var\/)?run\/utmp$|var\/adm\/)/;

/** A history file or a system log: erasing it hides what was done. */
export function isTrace(path: string): boolean {
  const p = path.replace(/\/+$/, '').replace(/\/\.\//g, '/');
  return HISTORY_FILE.test(p) || SYSTEM_LOG.test(p);
}

/**
 * How a write treats what was in the file: `replace` empties or swaps it (`: > f`, `cp /dev/null f`, `truncate`),
 * `output` is a program's output written over it (`server > /var/log/server.log`, `tee`), `append` keeps it.
 */
export type WriteMode = 'replace' | 'output' | 'append';

/** A write that erases a history file or log; a program logging into /var/log over its own old log is not. */
export function checkTraceWrite(target: Word, mode: WriteMode, detail: string, ctx: CheckContext): void {
  if (mode === 'append' || !isTrace(target.text)) return;
  if (mode === 'replace' || HISTORY_FILE.test(target.text.replace(/\/+$/, ''))) ctx.add('log-wipe', detail);
}

/** `HISTFILE=/dev/null`, `HISTSIZE=0`: history is not kept from here on. */
export function checkHistoryVariable(name: string, value: Word, ctx: CheckContext): void {
  if (
    (name === 'HISTFILE' && !value.dynamic && (value.text === '' || value.text === '/dev/null')) ||
    (/^(HISTSIZE|HISTFILESIZE|SAVEHIST)$/.test(name) && value.text === '0')
  )
    ctx.add('log-wipe', `${name}=${value.text}`);
}

/** `unset HISTFILE` (an unset statement of its own in the grammar, or a command after a wrapper). */
export function checkUnset(names: string[], ctx: CheckContext): void {
  if (names.includes('HISTFILE')) ctx.add('log-wipe', `unset ${names.join(' ')}`);
}

judges(import.meta.url, {
  history: whenArg('log-wipe', /^-[a-z]*[cd]/),
  // `set +o history` stops recording; `unset HISTFILE` stops saving.
  set: when('log-wipe', (w) => w.includes('+o') && w[w.indexOf('+o') + 1] === 'history'),
  unset: (cmd, _io, ctx) =>
    checkUnset(
      cmd.args.map((a) => a.text),
      ctx,
    ),
  // journalctl --vacuum-* deletes archived journal files.
  journalctl: whenArg('log-wipe', /^--vacuum-(time|size|files)\b/),
});
