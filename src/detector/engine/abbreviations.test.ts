// Routes through option spellings and option variables the gate used to miss, at the detector with files read as the
// gate reads them: GNU-style abbreviations of long options (`--compress-prog`, `--fi`, `--checkpoint-act`), variables
// a program reads as its own options (TAR_OPTIONS, MAKEFLAGS, LESS), ctest scripts, and python -m modules that import
// or run project files (doctest, pydoc, unittest). Each member asks with a reason naming what runs; each look-alike
// does not ask.
import { beforeAll, describe } from 'vitest';
import { judgedTable } from '../../../test/support/judge-on-disk.js';
import { loadBashParser } from './parser.js';

const CWD = '/work/proj';
beforeAll(async () => {
  await loadBashParser();
});

/** The gate as the activity runs it, with files (and directory listings) from `disk` (relative path → text). */

const P = `touch ${CWD}/m1; kubectl delete pod demo`;
const SH = { 'c.sh': `${P}\n` };
const PY = `import os\nos.system("${P}")\n`;

/** [command, files, a rule it must report, a text the reasons must contain] */
type Asks = [string, Record<string, string>, string, string];

const ASKS: Asks[] = [
  // 1. Abbreviated long options (getopt_long, parse-options, Python's getopt take any unambiguous prefix).
  ['sort -S 16K --compress-prog=sh big2', {}, 'dynamic-command', 'becomes the program sh runs'],
  ['sort --com=sh big2', {}, 'dynamic-command', 'becomes the program sh runs'],
  ['sort --compress-p bash big2', {}, 'dynamic-command', 'becomes the program bash runs'],
  [`split --filt='${P}' sp`, {}, 'kubectl-delete', 'kubectl delete pod demo'],
  [`split --fi '${P}' sp`, {}, 'kubectl-delete', 'kubectl delete pod demo'],
  [`tar --checkpoint=1 --checkpoint-act=exec='sh c.sh' -cf t.tar x`, SH, 'kubectl-delete', 'kubectl delete'],
  [`tar cf t.tar --use-compress-prog='sh c.sh' x`, SH, 'kubectl-delete', 'kubectl delete'],
  [`tar --to-com='${P}' -xf t.tar`, {}, 'kubectl-delete', 'kubectl delete'],
  [`make --ev='X := $(shell ${P})'`, {}, 'kubectl-delete', 'kubectl delete'],
  [`git rebase --exe '${P}' main`, {}, 'kubectl-delete', 'kubectl delete'],
  [`wget --use-ask='${P}' https://example.org/`, {}, 'kubectl-delete', 'kubectl delete'],
  [`gdb -q --arg sh -c '${P}'`, {}, 'kubectl-delete', 'kubectl delete'],
  [`python3 -m timeit --set='import os; os.system("${P}")' pass`, {}, 'kubectl-delete', 'kubectl delete'],
  // 2. Variables a program reads as its own options.
  [`TAR_OPTIONS='--checkpoint=1 --checkpoint-action=exec=sh\\ c.sh' tar cf t.tar x`, SH, 'kubectl-delete', 'kubectl'],
  [`TAR_OPTIONS="--to-command='${P}'" tar xf t.tar`, {}, 'kubectl-delete', 'kubectl delete'],
  [`MAKEFLAGS='--eval=X:=$(shell\\ kubectl\\ delete\\ pod\\ demo)' make`, {}, 'kubectl-delete', 'kubectl delete'],
  [`MAKEFLAGS='--eval=X:=$(shell ${P})' make`, {}, 'unread-script', 'make --eval'],
  [`MAKEFLAGS='-f c.mk' make`, { 'c.mk': `all:\n\t${P}\n` }, 'kubectl-delete', 'kubectl delete'],
  [`LESS='+!${P}' less notes.txt`, {}, 'kubectl-delete', 'kubectl delete'],
  // 3. ctest scripts are cmake scripts.
  ['ctest -S e6.cmake', { 'e6.cmake': `execute_process(COMMAND sh -c "${P}")\n` }, 'kubectl-delete', 'kubectl'],
  [
    'ctest -SP e6.cmake,nightly',
    { 'e6.cmake': `execute_process(COMMAND sh -c "${P}")\n` },
    'kubectl-delete',
    'kubectl',
  ],
  ['ctest -V --script e6.cmake', { 'e6.cmake': 'file(REMOVE_RECURSE ~)\n' }, 'delete-home', 'rm -rf ~'],
  [`ctest --build-and-test src b --build-generator Ninja --test-command sh -c '${P}'`, {}, 'kubectl-delete', 'kubectl'],
  // 4. python -m modules that import or run project files.
  [
    'python3 -m doctest doc.txt',
    { 'doc.txt': `>>> import os\n>>> os.system("${P}")\n0\n` },
    'kubectl-delete',
    'kubectl',
  ],
  ['python3 -m doctest -v mod.py', { 'mod.py': PY }, 'kubectl-delete', 'kubectl delete'],
  ['python3 -m pydoc ./pm.py', { 'pm.py': PY }, 'kubectl-delete', 'kubectl delete'],
  ['python3 -m unittest', { 'tests/test_a.py': PY, 'tests/__init__.py': '' }, 'kubectl-delete', 'kubectl delete'],
  // An option alone (no -s/-p after it) was read as the start directory: nothing was discovered (last attack pass).
  ['python3 -m unittest -q', { 'test_a.py': PY }, 'kubectl-delete', 'kubectl delete'],
];

/** Look-alikes: the same programs and modules with options and files that run nothing. */
const BENIGN: [string, Record<string, string>][] = [
  ['sort --numeric-sort f', {}],
  ['sort --compress-program=gzip -S 1M big', {}],
  ['split --lines=10 f', {}],
  ['split --line-bytes=1M f', {}],
  ['tar --create -f t.tar x', {}],
  ['tar --checkpoint=100 --checkpoint-action=dot -cf t.tar x', {}],
  ['tar --checkpoint exec=x -cf t.tar y', {}],
  ["TAR_OPTIONS='--numeric-owner' tar cf t.tar x", {}],
  ['python3 -m doctest inert.txt', { 'inert.txt': '>>> 1 + 1\n2\n' }],
  ['python3 -m pydoc json', {}],
  ['python3 -m unittest', { 'test_ok.py': 'import unittest\nclass T(unittest.TestCase):\n    pass\n' }],
  ['python3 -m compileall -q src', {}],
  ["LESS='-R +G' less notes.txt", {}],
];

describe('abbreviated options, option variables, ctest scripts and python -m modules', () => {
  judgedTable(CWD, ASKS, BENIGN);
});
