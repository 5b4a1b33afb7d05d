// Editors and stream programs that run commands (vim/vi/ex/view/nvim `-c`/`+cmd`, ed on standard input, GNU sed's `e`)
// and Perl running its input lines (readpipe, backticks, qx, system): at the detector with files read as the gate
// reads them. A filter (`%!sh`, `w !sh`) is fed the file edited, so what runs is that file's text; each member asks
// with a reason naming what runs, and each look-alike does not ask.
import { beforeAll, describe } from 'vitest';
import { judgedTable, type Asks, type Benign } from '../../../test/support/judge-on-disk.js';
import { loadBashParser } from '../engine/parser.js';

const CWD = '/work/proj';
beforeAll(async () => {
  await loadBashParser();
});

const P = `touch ${CWD}/m1; kubectl delete pod demo`;
/** A file whose lines are a command that needs approval. */
const CMDS = { 'cmds.txt': `${P}\n` };
const NOTES = { 'notes.txt': 'b\na\n' };

const EDITORS: Asks[] = [
  // The bang command itself, in every spelling of the command option.
  [`ex -c ':!${P}' -c 'q!' f`, {}, 'kubectl-delete', 'kubectl delete pod demo'],
  [`ex -sc '!${P}' f`, {}, 'kubectl-delete', 'kubectl delete pod demo'],
  [`vim -es '+!${P}' '+q!' f`, {}, 'kubectl-delete', 'kubectl delete pod demo'],
  [`view -Nc 'r !${P}' f`, {}, 'kubectl-delete', 'kubectl delete pod demo'],
  // A filter or `w !` runs the program on the buffer: a shell then runs the file's lines.
  [`vi -c '%!sh' cmds.txt`, CMDS, 'kubectl-delete', 'kubectl delete pod demo'],
  [`vim -c 'w !bash' -c 'q!' cmds.txt`, CMDS, 'kubectl-delete', 'kubectl delete pod demo'],
  [`nvim --headless +'1,$!sh' +'q!' cmds.txt`, CMDS, 'kubectl-delete', 'kubectl delete pod demo'],
  [`ex -s +'%!sh' +wq cmds.txt`, CMDS, 'kubectl-delete', 'kubectl delete pod demo'],
  // ed reads its commands from a here-string, a here-document or a pipe.
  [`ed -s cmds.txt <<< 'w !sh'`, CMDS, 'kubectl-delete', 'kubectl delete pod demo'],
  [`printf ',w !sh\\nq\\n' | ed -s cmds.txt`, CMDS, 'kubectl-delete', 'kubectl delete pod demo'],
  [`ed -s f <<EOF\n!${P}\nq\nEOF`, {}, 'kubectl-delete', 'kubectl delete pod demo'],
  [`ed -s f <<< 'r !${P}'`, {}, 'kubectl-delete', 'kubectl delete pod demo'],
  // With no file to read, the buffer fed to a shell is text not known here.
  [`vi -c '%!sh'`, {}, 'dynamic-command', 'computed at run time'],
  // GNU sed: `e CMD`, a bare `e` (each line runs), `s///e`.
  [`sed -n '1e ${P}' f`, {}, 'kubectl-delete', 'kubectl delete pod demo'],
  [`sed e cmds.txt`, CMDS, 'dynamic-command', 'sed runs each line as a command'],
  [`sed -n 's/.*/&/ep' cmds.txt`, CMDS, 'dynamic-command', 's///e runs the replaced line'],
];

const PERL: Asks[] = [
  [`perl -lne 'print readpipe($_)' cmds.txt`, CMDS, 'dynamic-command', 'built at run time'],
  [`perl -lne 'print readpipe' cmds.txt`, CMDS, 'dynamic-command', 'built at run time'],
  [`perl -ne 'print CORE::readpipe($_)' cmds.txt`, CMDS, 'dynamic-command', 'built at run time'],
  [`perl -e 'while (<STDIN>) { print readpipe }' < cmds.txt`, CMDS, 'dynamic-command', 'built at run time'],
  [`perl -ne 'print \`$_\`' cmds.txt`, CMDS, 'dynamic-command', 'computed at run time'],
  [`perl -ne 'print qx{$_}' cmds.txt`, CMDS, 'dynamic-command', 'computed at run time'],
  [`perl -ne 'system $_' cmds.txt`, CMDS, 'dynamic-command', 'built at run time'],
];

const BENIGN: Benign[] = [
  ['vim -c "set nu" -c wq notes.txt', NOTES],
  [`vi -c '%!sort' -c wq notes.txt`, NOTES],
  ['ex -sc "%s/a/b/g|wq" notes.txt', NOTES],
  [`ed -s notes.txt <<< $'1d\\nw\\nq'`, NOTES],
  [`ed -s notes.txt <<< ',w !wc -l'`, NOTES],
  ["sed -n '1p' notes.txt", NOTES],
  ["sed -i 's/foo/bar/g' notes.txt", NOTES],
  [`perl -ne 'print if /readpipe/' notes.txt`, NOTES],
  [`perl -lne 'print length($_)' notes.txt`, NOTES],
  [`perl -e 'print readpipe("git status")'`, {}],
];

describe('an editor, ed or sed running commands', () => judgedTable(CWD, EDITORS, BENIGN.slice(0, 7)));
describe("perl running its input's lines", () => judgedTable(CWD, PERL, BENIGN.slice(7)));
