// Launchers and code-loading routes found by the black-box attack pass, at the detector with files read as the gate
// reads them: the dynamic loader as a program, python -m modules that run their arguments, options that name a program
// or command line, cmake scripts and projects, make's dry runs, variables that make a library load code. Each member
// asks with a reason naming what runs; each benign look-alike does not ask.
import { beforeAll, describe } from 'vitest';
import { judgedTable } from '../../../test/support/judge-on-disk.js';
import { loadBashParser } from '../engine/parser.js';

const CWD = '/work/proj';
beforeAll(async () => {
  await loadBashParser();
});

/** The gate as the activity runs it, with files from `disk` (relative key → text); a file not there is missing. */

const P = `touch ${CWD}/m1; kubectl delete pod demo`;

/** [command, files, a rule it must report, a text the reasons must contain] */
type Asks = [string, Record<string, string>, string, string];

const ASKS: Asks[] = [
  // 1. The dynamic loader run as a program: its operand is the program, --preload/--audit load code into it.
  [`/lib64/ld-linux-x86-64.so.2 /bin/sh -c '${P}'`, {}, 'kubectl-delete', 'kubectl delete pod demo'],
  ['/lib64/ld-linux-x86-64.so.2 /usr/bin/kubectl delete pod demo', {}, 'kubectl-delete', 'kubectl delete'],
  ['ld.so /usr/bin/kubectl delete pod demo', {}, 'kubectl-delete', 'kubectl delete'],
  ['/lib/ld-musl-x86_64.so.1 --argv0 x /bin/sh -c "rm -rf ~"', {}, 'delete-home', 'rm -rf ~'],
  ['/lib/x86_64-linux-gnu/ld-2.31.so --inhibit-cache kubectl delete pod demo', {}, 'kubectl-delete', 'kubectl'],
  ['ld-linux-x86-64.so.2 --preload ./evil.so /bin/ls', {}, 'hijack-path', '--preload ./evil.so'],
  ['/lib64/ld-linux-x86-64.so.2 --audit ./a.so /bin/true', {}, 'hijack-path', '--audit ./a.so'],
  ['/lib64/ld-linux-x86-64.so.2 --library-path /tmp/l /bin/true', {}, 'hijack-path', 'LD_LIBRARY_PATH=/tmp/l'],
  // 2. python -m modules that run code or a program from their own arguments.
  [`python3 -m timeit -n1 -s 'import os' 'os.system("${P}")'`, {}, 'kubectl-delete', 'kubectl delete'],
  [`python3 -m timeit --setup='import os; os.system("rm -rf ~")' pass`, {}, 'delete-home', 'rm -rf ~'],
  [`python3 -m cProfile -m timeit 'import os; os.system("${P}")'`, {}, 'kubectl-delete', 'kubectl'],
  ['python3 -m cProfile evil.py', { 'evil.py': `import os\nos.system("${P}")\n` }, 'kubectl-delete', 'kubectl'],
  ['python3 -m trace --trace evil.py', { 'evil.py': `import os\nos.system("${P}")\n` }, 'kubectl-delete', 'kubectl'],
  [`python3 -m pdb -c '!import os; os.system("${P}")' ok.py`, { 'ok.py': 'print(1)\n' }, 'kubectl-delete', 'kubectl'],
  [`python3 -m runpy timeit 'import os; os.system("${P}")'`, {}, 'kubectl-delete', 'kubectl'],
  [`echo 'import os; os.system("${P}")' | python3 -m code`, {}, 'kubectl-delete', 'kubectl'],
  // 3. Options that name a program or a command line.
  ['sort -S 16K --compress-program=sh big2', {}, 'dynamic-command', 'becomes the program sh runs'],
  ['sort --compress-program bash -S 1M big2', {}, 'dynamic-command', 'becomes the program bash runs'],
  [`split --filter='${P}' file`, {}, 'kubectl-delete', 'kubectl'],
  ['split -n 2 --filter=sh file', {}, 'dynamic-command', 'split --filter sh'],
  [`strace -o '|sh -c "${P}"' true`, {}, 'kubectl-delete', 'kubectl'],
  [`strace -f -o '!${P}' true`, {}, 'kubectl-delete', 'kubectl'],
  [`ltrace -o '|${P}' true`, {}, 'kubectl-delete', 'kubectl'],
  [`capsh --caps=cap_chown+ep -- -c '${P}'`, {}, 'kubectl-delete', 'kubectl'],
  [`setpriv --reuid 1000 --regid 1000 --clear-groups sh -c '${P}'`, {}, 'kubectl-delete', 'kubectl'],
  [`setarch x86_64 -R sh -c '${P}'`, {}, 'kubectl-delete', 'kubectl'],
  [`prlimit --nofile=64 sh -c '${P}'`, {}, 'kubectl-delete', 'kubectl'],
  [`faketime '2020-01-01' sh -c '${P}'`, {}, 'kubectl-delete', 'kubectl'],
  [`ip netns exec blue sh -c '${P}'`, {}, 'kubectl-delete', 'kubectl'],
  [`perf stat -e cycles -- sh -c '${P}'`, {}, 'kubectl-delete', 'kubectl'],
  [`gdb -q --args sh -c '${P}'`, {}, 'kubectl-delete', 'kubectl'],
  [`bwrap --ro-bind / / --dev /dev sh -c '${P}'`, {}, 'kubectl-delete', 'kubectl'],
  [`start-stop-daemon --start --exec /bin/sh -- -c '${P}'`, {}, 'kubectl-delete', 'kubectl'],
  [`rpm --eval '%(${P})'`, {}, 'kubectl-delete', 'kubectl'],
  [`gpg --photo-viewer '${P}' --list-keys`, {}, 'kubectl-delete', 'kubectl'],
  [`wget -e 'use_askpass=${P}' https://example.org/`, {}, 'kubectl-delete', 'kubectl'],
  [`less +'!${P}' notes.txt`, {}, 'kubectl-delete', 'kubectl'],
  ['openssl req -new -engine ./evil.so -key k.pem', {}, 'hijack-path', './evil.so'],
  // 4. cmake: scripts, built-in commands, a project being configured.
  ['cmake -P s.cmake', { 's.cmake': `execute_process(COMMAND sh -c "${P}")\n` }, 'kubectl-delete', 'kubectl'],
  ['cmake -P s.cmake', { 's.cmake': 'exec_program(rm ARGS "-rf ~")\n' }, 'delete-home', 'rm -rf ~'],
  ['cmake -P s.cmake', { 's.cmake': 'file(WRITE /etc/profile.d/x.sh "id")\n' }, 'unread-script', 'file(WRITE'],
  ['cmake -P s.cmake', { 's.cmake': 'cmake_language(EVAL CODE "${X}")\n' }, 'unread-script', 'cmake_language(EVAL)'],
  [
    'cmake -P s.cmake',
    { 's.cmake': 'include(more.cmake)\n', 'more.cmake': 'file(REMOVE_RECURSE ~)\n' },
    'delete-home',
    'rm -rf ~',
  ],
  ['cmake -E rm -rf /', {}, 'delete-root', 'rm -rf /'],
  ['cmake -E remove_directory ~', {}, 'delete-home', 'rm -rf ~'],
  [`cmake -E chdir sub sh -c '${P}'`, {}, 'kubectl-delete', 'kubectl'],
  ['cmake -E frobnicate x', {}, 'unread-script', 'cmake -E frobnicate'],
  [
    'cmake -S . -B build',
    { 'CMakeLists.txt': `project(x)\nexecute_process(COMMAND kubectl delete pod demo)\n` },
    'kubectl-delete',
    'kubectl',
  ],
  [
    'cmake ..',
    { '../CMakeLists.txt': 'project(x)\nadd_subdirectory(sub)\n', '../sub/CMakeLists.txt': 'file(REMOVE_RECURSE ~)\n' },
    'delete-home',
    'rm -rf ~',
  ],
  [
    'cmake -DCMAKE_TOOLCHAIN_FILE=tc.cmake -S clean -B b',
    { 'tc.cmake': 'execute_process(COMMAND kubectl delete pod demo)\n' },
    'kubectl-delete',
    'kubectl',
  ],
  // 5. make's dry runs still run $(shell ...) while reading the makefile, and + lines and $(MAKE) calls.
  ['make -n', { Makefile: `X := $(shell ${P})\nall:\n\techo hi\n` }, 'kubectl-delete', 'kubectl'],
  ['make', { Makefile: `X := $(shell ${P})\nall:\n\techo hi\n` }, 'kubectl-delete', 'kubectl'],
  ['make --dry-run all', { Makefile: `all:\n\techo $(shell ${P})\n` }, 'kubectl-delete', 'kubectl'],
  ['make -q', { Makefile: `ifeq ($(shell ${P}),)\nendif\n` }, 'kubectl-delete', 'kubectl'],
  ['make --just-print', { Makefile: `include $(shell ${P}; echo x.mk)\n` }, 'kubectl-delete', 'kubectl'],
  ['make -n', { Makefile: `$(info $(shell ${P}))\nall:\n\ttrue\n` }, 'kubectl-delete', 'kubectl'],
  ['make -n', { Makefile: 'all:\n\t+kubectl delete pod demo\n' }, 'kubectl-delete', 'kubectl'],
  ['make -n', { Makefile: 'all:\n\t$(MAKE) -C sub; kubectl delete pod demo\n' }, 'kubectl-delete', 'kubectl'],
  ['make -n', { Makefile: '$(eval $(call tpl,x))\nall:\n\ttrue\n' }, 'unread-script', 'is computed when make runs'],
  [
    'make -n',
    { Makefile: '.SHELLFLAGS = -c "kubectl delete pod demo"\nall:\n\ttrue\n' },
    'unread-script',
    '.SHELLFLAGS',
  ],
  // 6. Variables that make a library or runtime load code from a directory or file.
  [`GCONV_PATH=${CWD} iconv -f EVIL -t UTF-8 x`, {}, 'hijack-path', 'GCONV_PATH'],
  ['GCONV_PATH=. iconv -l', {}, 'hijack-path', 'GCONV_PATH=.'],
  ['env OPENSSL_CONF=./o.cnf openssl version', {}, 'hijack-path', 'OPENSSL_CONF'],
  ['OPENSSL_MODULES=/tmp/m openssl list -providers', {}, 'hijack-path', 'OPENSSL_MODULES'],
  ['GST_PLUGIN_PATH=plugins gst-inspect-1.0', {}, 'hijack-path', 'GST_PLUGIN_PATH'],
  ['QT_PLUGIN_PATH=./p ./app', {}, 'hijack-path', 'QT_PLUGIN_PATH'],
  ['GTK_MODULES=./evil.so gedit', {}, 'hijack-path', 'GTK_MODULES'],
  ['PYTHONHOME=/tmp/py python3 -c 1', {}, 'hijack-path', 'PYTHONHOME'],
  ['SASL_PATH=. ldapsearch -x', {}, 'hijack-path', 'SASL_PATH'],
  ['export GIO_MODULE_DIR=$PWD/mods; gio info x', {}, 'hijack-path', 'GIO_MODULE_DIR'],
  ["LUA_CPATH='/tmp/?.so' lua x.lua", {}, 'hijack-path', 'LUA_CPATH'],
  [`PERL5DB='BEGIN { system("${P}") }' perl -d ok.pl`, {}, 'kubectl-delete', 'kubectl'],
  [`SYSTEMD_PAGER='${P}' systemctl status`, {}, 'kubectl-delete', 'kubectl'],
  [`BROWSER='${P}' xdg-open https://example.org`, {}, 'kubectl-delete', 'kubectl'],
];

const BENIGN: [string, Record<string, string>][] = [
  ['/lib64/ld-linux-x86-64.so.2 /bin/ls -l', {}],
  ['/lib64/ld-linux-x86-64.so.2 --list /bin/ls', {}],
  ['ld.so --verify /bin/ls', {}],
  ["python3 -m timeit '1+1'", {}],
  ["python3 -m timeit -n 100 -s 'import json' 'json.dumps([1, 2])'", {}],
  ['python3 -m http.server 8000', {}],
  ['python3 -m cProfile -s cumtime ok.py', { 'ok.py': 'print(sum(range(10)))\n' }],
  ['python3 -m pdb -c continue ok.py', { 'ok.py': 'print(1)\n' }],
  ['python3 -m pip install -r requirements.txt', {}],
  ['sort -n f', {}],
  ['sort --compress-program=gzip -S 1M big', {}],
  ['split -l 100 f', {}],
  ["split -l 10 --filter='gzip > $FILE.gz' f", {}],
  ['strace -o trace.txt ls', {}],
  ['strace -f -e trace=openat ls', {}],
  ['capsh --print', {}],
  ['setpriv --dump', {}],
  ['ip netns list', {}],
  ['perf report', {}],
  ['gdb -batch -ex bt ./a.out core', {}],
  ["rpm --eval '%{_libdir}'", {}],
  ['wget -e robots=off https://example.org/', {}],
  ['less +G notes.txt', {}],
  ['openssl x509 -in c.pem -noout -text', {}],
  ['cmake --version', {}],
  ['cmake --build build -j8', {}],
  ['cmake -E make_directory build', {}],
  ['cmake -E echo hello', {}],
  ['cmake -P ok.cmake', { 'ok.cmake': 'cmake_minimum_required(VERSION 3.10)\nset(X 1)\nmessage(STATUS "x=${X}")\n' }],
  [
    'cmake -S . -B build -G "Unix Makefiles" -DCMAKE_BUILD_TYPE=Release',
    {
      'CMakeLists.txt':
        'cmake_minimum_required(VERSION 3.16)\nproject(app C)\nfind_package(Threads)\nadd_executable(app main.c)\ntarget_link_libraries(app Threads::Threads)\nadd_custom_target(gen COMMAND python3 gen.py)\ninclude(CTest)\n',
    },
  ],
  [
    'make -n',
    { Makefile: 'CC := gcc\nSRC := $(wildcard *.c)\nall: $(SRC)\n\t$(CC) -o app $(SRC)\n\tkubectl delete pod demo\n' },
  ],
  ['make -n', { Makefile: 'ifeq ($(findstring x,$(CC)),)\nY = 1\nendif\nall:\n\techo $(foreach f,a b,$(f))\n' }],
  ['iconv -f latin1 -t utf-8 f', {}],
  ['GCONV_PATH=/usr/lib/x86_64-linux-gnu/gconv iconv -f latin1 -t utf-8 f', {}],
  ['OPENSSL_CONF=/etc/ssl/openssl.cnf openssl version', {}],
];

describe('launchers and code-loading routes found by the attack pass', () => {
  judgedTable(CWD, ASKS, BENIGN);
});
