// More routes where text is evaluated again or carried into a later program, at the detector with files read as the
// gate reads them: make variable references inside `$(shell ...)` and includes read from make's -C directory,
// compgen/complete -W word lists, bash functions imported from BASH_FUNC_<name>%% variables, and INPUTRC naming
// readline's key bindings. Each member asks with a reason naming what runs; each benign look-alike does not ask.
import { beforeAll, describe } from 'vitest';
import { judgedTable } from '../../../test/support/judge-on-disk.js';
import { loadBashParser } from './parser.js';

const CWD = '/work/proj';
beforeAll(async () => {
  await loadBashParser();
});

/** The gate as the activity runs it, with files from `disk` (relative key → text); a file not there is missing. */

const P = `touch ${CWD}/m1; kubectl delete pod demo`;
const inert = 'all:\n\techo hi\n';

/** [command, files, a rule it must report, a text the reasons must contain] */
type Asks = [string, Record<string, string>, string, string];

const ASKS: Asks[] = [
  // make: a variable reference inside $(shell ...) no longer hides the call.
  [
    'make -n',
    { Makefile: `X := $(shell touch $(CURDIR)/m702; kubectl delete pod demo)\n${inert}` },
    'kubectl-delete',
    'kubectl delete pod demo',
  ],
  [
    'make',
    { Makefile: `X := $(shell touch $(CURDIR)/m702; kubectl delete pod demo)\n${inert}` },
    'kubectl-delete',
    'kubectl delete pod demo',
  ],
  [
    'make -n',
    { Makefile: `X := $(shell touch m; kubectl delete pod$(E) demo)\n${inert}` },
    'kubectl-delete',
    'kubectl delete',
  ],
  ['make -n', { Makefile: `X = $(shell ${P} $(Y))\nall:\n\techo $(X)\n` }, 'kubectl-delete', 'kubectl delete'],
  ['make', { Makefile: `all:\n\techo $(CURDIR) && kubectl delete pod $(POD)\n` }, 'kubectl-delete', 'kubectl delete'],
  // An unknown command name is computed when make runs: asks as dynamic.
  ['make -n', { Makefile: `X := $(shell $(TOOL) delete pod demo)\n${inert}` }, 'dynamic-command', '${TOOL}'],
  // A variable from the command's environment is known.
  [
    'TOOL=kubectl make -n',
    { Makefile: `X := $(shell $(TOOL) delete pod demo)\n${inert}` },
    'kubectl-delete',
    'kubectl delete pod demo',
  ],
  // Includes and -f files are read from the -C directory.
  [
    'make -n -C c',
    { 'c/Makefile': `include ../inc.mk\n${inert}`, 'inc.mk': `X := $(shell ${P})\n` },
    'kubectl-delete',
    'kubectl',
  ],
  ['make -n -C c -f x.mk', { 'c/x.mk': `X := $(shell ${P})\n` }, 'kubectl-delete', 'kubectl'],
  // compgen/complete -W: the word list is expanded again.
  [`bash -c 'compgen -W "\\$(${P})" x'`, {}, 'evaluated-value', 'compgen -W'],
  [`compgen -W '$(${P})' x`, {}, 'kubectl-delete', 'kubectl delete'],
  [`x='$(${P})'; compgen -W "$x" y`, {}, 'evaluated-value', 'compgen -W'],
  [`complete -W '$(${P})' foo`, {}, 'evaluated-value', 'complete -W'],
  ['w=$(cat words); compgen -W "$w" y', {}, 'evaluated-value', 'computed at run time'],
  // BASH_FUNC_<name>%%: a function imported by every bash that inherits it, replacing a command.
  [`env 'BASH_FUNC_ls%%=() { ${P}; }' bash -c ls`, {}, 'carried-code', 'BASH_FUNC_ls%% defines a bash function'],
  [`env 'BASH_FUNC_ls%%=() { ${P}; }' bash -c ls`, {}, 'kubectl-delete', 'kubectl delete'],
  [`sudo 'BASH_FUNC_id()=() { rm -rf ~; }' bash -c id`, {}, 'carried-code', 'replacing id'],
  ['env "BASH_FUNC_ls%%=$(cat f)" bash -c ls', {}, 'dynamic-command', 'BASH_FUNC_ls'],
  // INPUTRC: readline's key bindings and macros from another file.
  ['INPUTRC=ir bash --norc -i', { ir: '"z": "\\C-a\\C-d"\n' }, 'line-editing', 'INPUTRC=ir'],
  ['export INPUTRC=./ir; bash -i', {}, 'line-editing', 'key bindings and macros'],
  ['env INPUTRC=ir python3', {}, 'line-editing', 'INPUTRC'],
  [`echo '"z": "x"' >> ~/.inputrc`, {}, 'overwrite-system-config', '.inputrc'],
  // Start-up files of an interactive shell are judged as scripts.
  ['bash --rcfile rc -i', { rc: `${P}\n` }, 'kubectl-delete', 'kubectl'],
  ['ENV=rc sh -i', { rc: `${P}\n` }, 'kubectl-delete', 'kubectl'],
];

/** [command, files]: look-alikes that run nothing dangerous. */
const BENIGN: [string, Record<string, string>][] = [
  ['make -n', { Makefile: `OUT := $(CURDIR)/out\nall:\n\techo $(OUT)\n` }],
  ['make -n', { Makefile: `V := $(shell git -C $(CURDIR) describe --tags)\n${inert}` }],
  ['make -C c', { 'c/Makefile': `D := $(CURDIR)/build\nall:\n\trm -rf $(D)\n` }],
  ['make -n -C c', { 'c/Makefile': `include ../inc.mk\n${inert}`, 'inc.mk': 'CFLAGS := -O2\n' }],
  ['compgen -W "a b c" x', {}],
  ['complete -W "start stop" svc', {}],
  ['compgen -P "$(id)" -W "a" x', {}],
  ['env FOO=1 bash -c ls', {}],
  ['env LANG=C.UTF-8 sort f', {}],
  ['bash --norc -i', {}],
  ['INPUTRC= bash -i', {}],
];

describe('values evaluated again and code carried into later programs ask', () => {
  judgedTable(CWD, ASKS, BENIGN);
});
