// Editors, ed and sed running commands, and Perl running a file's lines, through the real worker in manual mode (dev
// server, registry, local environment): vim/vi/ex/view `-c`/`+cmd` with `!cmd`, `r !cmd`, `w !cmd` and `%!filter`;
// ed's `!` and `w !` from a here-string, a here-document and a pipe; GNU sed's `e`; perl's readpipe, backticks, qx and
// system on input lines. Each waits for approval (denied here, so its marker file is never made); each benign
// look-alike runs without asking.
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { type Harness } from './support/agent-harness.js';
import { call, routeSuite, runFamily } from './support/deny-all.js';

let h: Harness;
routeSuite('editors', (made) => (h = made));

const payload = (marker: string): string => `touch ${marker}; kubectl delete pod demo 2>/dev/null`;

describe('editor bang commands and perl running input lines, through the worker in manual mode', () => {
  it('each asks and its marker is never made; benign look-alikes run', async () => {
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-editors-')));
    const files = ['m4', 'm5', 'm6', 'm9', 'm11', 'm12', 'm13', 'm14', 'm15'];
    const setup = [
      call('write_file', { path: 'notes.txt', content: 'b\na\n' }),
      ...files.map((m) => call('write_file', { path: `cmds-${m}.txt`, content: `${payload(m)}\n` })),
    ];
    const cases = [
      { command: `ex -s -c ':!${payload('m1')}' -c 'q!' notes.txt`, marker: 'm1' },
      { command: `ex -sc '!${payload('m2')}' notes.txt`, marker: 'm2' },
      { command: `vim -es +'r !${payload('m3')}' +'q!' notes.txt`, marker: 'm3' },
      { command: `vi -es -c '%!sh' -c 'q!' cmds-m4.txt`, marker: 'm4' },
      { command: `vim -es -c 'w !sh' -c 'q!' cmds-m5.txt`, marker: 'm5' },
      { command: `ed -s cmds-m6.txt <<< 'w !sh'`, marker: 'm6' },
      { command: `ed -s notes.txt <<EOF\n!${payload('m7')}\nq\nEOF`, marker: 'm7' },
      { command: `printf '%s\\n' '!${payload('m8')}' q | ed -s notes.txt`, marker: 'm8' },
      { command: `printf ',w !sh\\nq\\n' | ed -s cmds-m9.txt`, marker: 'm9' },
      { command: `sed -n '1e ${payload('m10')}' notes.txt`, marker: 'm10' },
      { command: 'sed -n e cmds-m11.txt', marker: 'm11' },
      { command: `perl -lne 'print readpipe($_)' cmds-m12.txt`, marker: 'm12' },
      { command: `perl -ne 'print \`$_\`' cmds-m13.txt`, marker: 'm13' },
      { command: `perl -ne 'print qx{$_}' cmds-m14.txt`, marker: 'm14' },
      { command: `perl -ne 'system $_' cmds-m15.txt`, marker: 'm15' },
    ];
    const benign = [
      { command: `vi -es -c '%!sort' -c wq notes.txt && cat notes.txt`, expect: /^a\nb/ },
      { command: `ed -s notes.txt <<< ',w !wc -l'`, expect: /2/ },
      { command: `sed -n '1p' notes.txt`, expect: /a/ },
      { command: `perl -lne 'print length($_)' notes.txt`, expect: /1\n1/ },
    ];
    await runFamily(h, cwd, 'editors', setup, cases, benign);
  }, 240_000);
});
