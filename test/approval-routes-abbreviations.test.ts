// Abbreviated long options, option variables, ctest scripts and python -m modules that run project files, through the
// real worker in manual mode (dev server, registry, local environment): `sort --compress-prog=sh`, `split --fi CMD`,
// `tar --checkpoint-act=exec=...`, TAR_OPTIONS, MAKEFLAGS, `ctest -S`, `python3 -m doctest`, `python3 -m pydoc`. Each
// waits for approval (denied here, so its marker file is never made); each benign look-alike runs without asking.
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { type Harness } from './support/agent-harness.js';

import { call, routeSuite, runFamily } from './support/deny-all.js';
import { type Step } from './support/scripted-model.js';

let h: Harness;
routeSuite('abbreviations', (made) => (h = made));

const write = (path: string, content: string): Step => call('write_file', { path, content });
const payload = (marker: string): string => `touch ${marker}; kubectl delete pod demo 2>/dev/null`;
const py = (marker: string): string => `import os\nos.system("${payload(marker)}")\n`;

describe('abbreviated options, option variables, ctest and python -m modules, through the worker in manual mode', () => {
  it('each asks and its marker is never made; benign look-alikes run', async () => {
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-abbreviations-')));
    const setup = [
      write('data.txt', 'b 2\na 1\n'),
      write('big1', `${payload('m1')}\n`),
      write('c3.sh', `${payload('m3')}\n`),
      write('c4.sh', `${payload('m4')}\n`),
      write('e5.cmake', `execute_process(COMMAND sh -c "${payload('m5')}")\n`),
      write('doc6.txt', `>>> import os\n>>> os.system("${payload('m6')}")\n0\n`),
      write('pm7.py', py('m7')),
      write('c8.mk', `all:\n\t${payload('m8')}\n`),
      write('inert.txt', '>>> 1 + 1\n2\n'),
    ];
    const cases = [
      { command: 'sort -S 16K --compress-prog=sh big1', marker: 'm1' },
      { command: `split --fi '${payload('m2')}' data.txt`, marker: 'm2' },
      { command: "tar --checkpoint=1 --checkpoint-act=exec='sh c3.sh' -cf t3.tar data.txt", marker: 'm3' },
      {
        command: "TAR_OPTIONS='--checkpoint=1 --checkpoint-action=exec=sh\\ c4.sh' tar cf t4.tar data.txt",
        marker: 'm4',
      },
      { command: 'ctest -S e5.cmake', marker: 'm5' },
      { command: 'python3 -m doctest doc6.txt', marker: 'm6' },
      { command: 'python3 -m pydoc ./pm7.py', marker: 'm7' },
      { command: "MAKEFLAGS='-f c8.mk' make", marker: 'm8' },
    ];
    const benign = [
      { command: 'sort --numeric-sort data.txt', expect: /a 1\nb 2/ },
      { command: 'split --lines=1 data.txt part_ && ls part_*', expect: /part_aa/ },
      { command: 'tar --create -f ok.tar data.txt && tar -tf ok.tar', expect: /data\.txt/ },
      { command: 'python3 -m doctest -v inert.txt', expect: /passed/ },
    ];
    await runFamily(h, cwd, 'abbreviations', setup, cases, benign);
  }, 180_000);
});
