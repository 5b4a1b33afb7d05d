// Program text in the languages the detector reads beyond shells, Python and JavaScript: each language's reader
// judges what its code runs (awk, sed, Tcl, Lisp, vim and ex scripts, gdb/lldb command files, ed, dc, m4, gnuplot,
// R, Julia, SQL client scripts; the loads and pipe opens of Perl, Ruby, PHP and Lua). Pure.
import { edScript, gdbCommand, keystrokes, lldbCommand, sedScript, vimScript } from '../../checks/escapes.js';
import { sqlText } from '../../checks/data.js';
import type { CheckContext } from '../../checks/types.js';
import { readAwk } from './awk.js';
import { readLisp } from './lisp.js';
import { readScripting } from './scripting.js';
import { detailOf, readDc, readGnuplot, readJulia, readM4, readR } from './small.js';
import { readTcl } from './tcl.js';
import { aptConfig, sshConfig } from '../../checks/option-commands.js';
import { screenScript, tmuxScript } from './terminals.js';

const READERS: Record<string, (source: string, ctx: CheckContext) => void> = {
  awk: readAwk,
  sed: (s, ctx) => sedScript(s, ctx, detailOf('sed script', s)),
  tcl: (s, ctx) => readTcl(s, ctx),
  elisp: readLisp,
  lisp: readLisp,
  vim: (s, ctx) => vimScript(s, ctx, detailOf('vim script', s)),
  'vim-keys': (s, ctx) => keystrokes(s, ctx, detailOf('vim keystrokes script', s)),
  gdb: (s, ctx) => s.split('\n').forEach((l) => gdbCommand(l, ctx)),
  lldb: (s, ctx) => s.split('\n').forEach((l) => lldbCommand(l, ctx)),
  ed: (s, ctx) => edScript(s, ctx, detailOf('ed script', s)),
  dc: readDc,
  m4: readM4,
  gnuplot: readGnuplot,
  r: readR,
  julia: readJulia,
  sql: (s, ctx) => sqlText(s, ctx, detailOf('sql script', s)),
  tmux: (s, ctx) => tmuxScript(s, ctx),
  'ssh-config': sshConfig,
  'apt-config': aptConfig,
  screenrc: screenScript,
};

/** Judges program text of a language read here; Python, JavaScript and the one-liner patterns are judged elsewhere. */
export function readLanguage(source: string, language: string, ctx: CheckContext): void {
  if (Object.hasOwn(READERS, language)) READERS[language]!(source, ctx);
  else readScripting(source, language, ctx);
}
