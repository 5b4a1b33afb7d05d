// Routes by which code ran without approval (issue 33), at the detector with files read as the gate reads them:
// program text from options and files, scripts named by globs, git running commands and hooks, project code imported
// or preloaded, runners' project files. Each member asks or is refused; its benign look-alike does not ask.
import { beforeAll, describe, expect, it } from 'vitest';
import { judgeSubject } from '../../approval/assess.js';
import { loadBashParser } from './parser.js';
import { listedDir, type ScriptFile } from './scripts.js';

const CWD = '/work/proj';
beforeAll(async () => {
  await loadBashParser();
});

/**
 * The gate as the activity runs it, with files from `disk` (key → text): a key ending in `/` is a directory; a
 * listing returns the names below it (directories with a trailing `/`).
 */
async function judged(command: string, disk: Record<string, string>, language?: string) {
  const asked: string[] = [];
  const { verdict, scripts } = await judgeSubject({ text: command, language }, CWD, async (keys) => {
    asked.push(...keys);
    return new Map(
      keys.map((key): [string, ScriptFile] => {
        // The environment resolves `./x` and `x` alike.
        const k = listedDir(key) === undefined ? key.replace(/^\.\//, '') : key;
        if (disk[key] !== undefined) return [key, { text: disk[key]! }];
        const dir = listedDir(k);
        if (dir !== undefined) {
          const prefix = dir === '.' || dir === '' ? '' : `${dir.replace(/\/$/, '')}/`;
          const names = new Set<string>();
          for (const path of Object.keys(disk))
            if (path.startsWith(prefix) && path !== prefix) {
              const rest = path.slice(prefix.length);
              names.add(rest.includes('/') ? `${rest.slice(0, rest.indexOf('/'))}/` : rest);
            }
          return [key, names.size > 0 || prefix === '' ? { entries: [...names] } : { missing: true }];
        }
        if (disk[`${k}/`] !== undefined || Object.keys(disk).some((p) => p.startsWith(`${k}/`)))
          return [key, { directory: true }];
        return [key, disk[k] !== undefined ? { text: disk[k]! } : { missing: true }];
      }),
    );
  });
  return { tier: verdict.tier, rules: verdict.findings.map((f) => f.rule), scripts: [...scripts.keys()], asked };
}

const KILL = 'kill -9 -1';
const PY_KILL = `import os\nos.system("${KILL}")\n`;
const JS_KILL = `require('child_process').execSync('${KILL}')\n`;

/** [command, files, expected tier (null: ordinary)] */
type Row = [string, Record<string, string>, 'hardline' | 'dangerous' | null];

const INTERPRETERS: Row[] = [
  ['awk -f evil.awk data.txt', { 'evil.awk': `BEGIN { system("${KILL}") }` }, 'hardline'],
  ['gawk --file=evil.awk x', { 'evil.awk': `{ print | "${KILL}" }` }, 'hardline'],
  ['awk -i lib.awk -e "BEGIN{}"', { 'lib.awk': `BEGIN { "${KILL}" | getline }` }, 'hardline'],
  ['awk -f report.awk data.txt', { 'report.awk': '{ s += $2 } END { print s | "sort -n" }' }, null],
  ['sed -f evil.sed input.txt', { 'evil.sed': `1e ${KILL}\n` }, 'hardline'],
  ['sed -nf evil.sed input.txt', { 'evil.sed': 's/x/y/e\n' }, 'dangerous'],
  ['sed -f fix.sed input.txt', { 'fix.sed': 's/foo/bar/g\n' }, null],
  ["perl -e 'print `$(cat payload.txt)`'", {}, 'dangerous'],
  ["perl -ne 'system $_' payload.txt", {}, 'dangerous'],
  ['perl -e \'do "x.pl"\'', { 'x.pl': `system("${KILL}");` }, 'hardline'],
  ["tclsh <<< 'exec kill -9 -1'", {}, 'hardline'],
  ['tclsh evil.tcl', { 'evil.tcl': `proc f {} { exec ${KILL} }\nf\n` }, 'hardline'],
  ['expect -c \'spawn bash; send "kill -9 -1\\r"\'', {}, 'hardline'],
  ['tclsh ok.tcl', { 'ok.tcl': 'if {$x > 1} { puts big }\nputs [string length abc]\n' }, null],
  ["ex -c '!kill -9 -1' -c q f", {}, 'hardline'],
  ['vim -es < cmds.ex f', { 'cmds.ex': `!${KILL}\nwq\n` }, 'hardline'],
  ['vim -S evil.vim', { 'evil.vim': `execute "!" . "${KILL}"\n` }, 'hardline'],
  ['vim -c \'exe "!" . cmd\'', {}, 'dangerous'],
  ['nvim -l evil.lua', { 'evil.lua': `os.execute("${KILL}")` }, 'hardline'],
  ["bash -c 'source /dev/stdin' < payload.txt", { 'payload.txt': KILL }, 'hardline'],
  ["bash -c '. /dev/fd/0' < payload.txt", { 'payload.txt': KILL }, 'hardline'],
  ['emacs --batch --eval \'(shell-command "kill -9 -1")\'', {}, 'hardline'],
  ['emacs --batch -l evil.el', { 'evil.el': `(call-process "kill" nil nil nil "-9" "-1")` }, 'hardline'],
  ["emacsclient -e '(shell-command cmd)'", {}, 'dangerous'],
  ['sort --compress-program=./g1.sh big.txt', { './g1.sh': KILL }, 'hardline'],
  ["dc -e '!kill -9 -1'", {}, 'hardline'],
  ["m4 <<< 'syscmd(kill -9 -1)'", {}, 'hardline'],
  ["m4 <<< 'define(C, kill)syscmd(C)'", {}, 'dangerous'],
  ['gnuplot -e \'system "kill -9 -1"\'', {}, 'hardline'],
  ['Rscript evil.R', { 'evil.R': `system("${KILL}")` }, 'hardline'],
  ["julia -e 'run(`kill -9 -1`)'", {}, 'hardline'],
  ['gdb -batch -x cmds.gdb ./a.out', { 'cmds.gdb': `shell ${KILL}\n` }, 'hardline'],
  ['lldb -o "platform shell kill -9 -1"', {}, 'hardline'],
  ["echo '!kill -9 -1' | ed", {}, 'hardline'],
  ['psql -f evil.sql app', { 'evil.sql': `\\! ${KILL}\n` }, 'hardline'],
  ["sqlite3 x.db '.once |kill -9 -1'", {}, 'hardline'],
  ["tmux send-keys -t dev 'kill -9 -1' Enter", {}, 'hardline'],
  ["screen -S dev -X stuff 'kill -9 -1^M'", {}, 'hardline'],
  ['tmux source-file evil.conf', { 'evil.conf': `run-shell '${KILL}'\n` }, 'hardline'],
  ['ssh -F ./cfg host', { './cfg': `Host *\n  ProxyCommand ${KILL}\n` }, 'hardline'],
  ["apt-get -o APT::Update::Pre-Invoke::='kill -9 -1' update", {}, 'hardline'],
  ["wget --use-askpass='kill -9 -1' https://example.com/x", {}, 'hardline'],
  ["man -P 'kill -9 -1' ls", {}, 'hardline'],
  ['make CC="kill -9 -1"', { Makefile: 'all:\n\t$(CC) -o a a.c\n' }, 'hardline'],
  ['make SHELL=./sh.sh', { Makefile: 'all:\n\techo hi\n', './sh.sh': KILL }, 'hardline'],
  ['MAKEFILES=extra.mk make', { Makefile: 'all:\n\techo hi\n', 'extra.mk': `x:\n\t${KILL}\n` }, 'hardline'],
  ['make CFLAGS=-O2', { Makefile: 'all:\n\t$(CC) $(CFLAGS) -o a a.c\n' }, null],
];

const GLOBS: Row[] = [
  ['sh g?.sh', { 'g1.sh': KILL }, 'hardline'],
  ['sh [g]1.sh', { 'g1.sh': KILL }, 'hardline'],
  ['. ./g*.sh', { 'g1.sh': 'echo ok', 'g2.sh': KILL }, 'hardline'],
  // bash expands the braces first: g1.sh runs, with a.sh as its argument
  ['bash {g1,a}.sh', { 'g1.sh': KILL }, 'hardline'],
  ['python3 s*/m?in.py', { 'src/main.py': PY_KILL }, 'hardline'],
  ['sh ok?.sh', { 'ok1.sh': 'echo fine' }, null],
];

const GIT: Row[] = [
  ["git rebase --exec 'kill -9 -1' HEAD~3", {}, 'hardline'],
  ["git rebase -x 'make test' HEAD~3", { Makefile: 'test:\n\tpytest\n' }, null],
  ["git difftool -x 'kill -9 -1' HEAD", {}, 'hardline'],
  ['git bisect run ./g1.sh', { './g1.sh': KILL }, 'hardline'],
  ["git submodule foreach --recursive 'kill -9 -1'", {}, 'hardline'],
  ["git grep -O'kill -9 -1' x", {}, 'hardline'],
  ["git clone --upload-pack='kill -9 -1' ./repo", {}, 'hardline'],
  ["git send-email --sendmail-cmd='kill -9 -1' x.patch", {}, 'hardline'],
  ['git send-pack --force origin main', {}, 'dangerous'],
  ['git send-pack origin :refs/heads/main', {}, 'dangerous'],
  ['git update-ref -d refs/heads/main', {}, 'dangerous'],
  ['git read-tree -u --reset HEAD', {}, 'dangerous'],
  ['git checkout-index -f -a', {}, 'dangerous'],
  ['git commit -m x', { '.git/': '', '.git/hooks/pre-commit': `#!/bin/sh\n${KILL}\n` }, 'hardline'],
  ['git commit -m x', { '.git/': '', '.git/hooks/pre-commit': '#!/bin/sh\nnpx lint-staged\n' }, null],
  ['cd sub && git commit -m x', { '.git/': '', 'sub/a': '', '.git/hooks/commit-msg': KILL }, 'hardline'],
  ['git -C sub merge dev', { '.git/': '', 'sub/a': '', '.git/hooks/post-merge': KILL }, 'hardline'],
  ['git push origin feature', { '.git/': '', '.git/hooks/pre-push': `#!/usr/bin/env python3\n${PY_KILL}` }, 'hardline'],
  ['git checkout dev', { '.git/': '', '.git/hooks/post-checkout': KILL }, 'hardline'],
  ['git status', { '.git/': '', '.git/hooks/post-index-change': KILL }, 'hardline'],
  ['git log', { '.git/': '', '.git/hooks/pre-commit': KILL }, null],
  [
    'git commit -m x',
    { '.git/': '', '.git/config': '[core]\n\thooksPath = .githooks\n', '.githooks/pre-commit': KILL },
    'hardline',
  ],
  ['git config core.hooksPath .githooks', {}, null],
  ['git -c core.hooksPath=.githooks commit -m x', { '.git/': '', '.githooks/pre-commit': KILL }, 'hardline'],
  ['git log', { '.git/': '', '.git/config': `[core]\n\tpager = ${KILL}\n` }, 'hardline'],
  ['git fetch', { '.git/': '', '.git/config': `[core]\n\tsshCommand = ${KILL}\n` }, 'hardline'],
  ['git ci', { '.git/': '', '.git/config': `[alias]\n\tci = !${KILL}\n` }, 'hardline'],
  ['git log', { '.git/': '', '.git/config': '[core]\n\tpager = less -FRX\n[alias]\n\tci = commit\n' }, null],
  [
    'git commit -m x',
    {
      '.git': 'gitdir: ../main/.git/worktrees/w\n',
      '../main/.git/worktrees/w/commondir': '../..',
      '../main/.git/hooks/pre-commit': KILL,
    },
    'hardline',
  ],
  ['git --exec-path=./bin status', { 'bin/git-status': KILL }, 'hardline'],
  // Found by a self-attack pass: configuration from another HOME, -c include.path, an interactive shell's rc file.
  ['HOME=./h git log', { '.git/': '', 'h/.gitconfig': `[core]\n\tpager = ${KILL}\n` }, 'hardline'],
  ['XDG_CONFIG_HOME=./cfg git log', { '.git/': '', 'cfg/git/config': `[core]\n\tpager = ${KILL}\n` }, 'hardline'],
  ['git -c include.path=h/evil.cfg log', { '.git/': '', 'h/evil.cfg': `[core]\n\tpager = ${KILL}\n` }, 'hardline'],
  [
    'pre-commit run --all-files',
    {
      '.pre-commit-config.yaml': `repos:\n  - repo: local\n    hooks:\n      - id: x\n        name: x\n        entry: ${KILL}\n        language: system\n`,
    },
    'hardline',
  ],
  ['lefthook run pre-commit', { 'lefthook.yml': `pre-commit:\n  commands:\n    x:\n      run: ${KILL}\n` }, 'hardline'],
];

const LOCAL_CODE: Row[] = [
  ['python main.py', { 'main.py': 'import helper\nhelper.go()\n', 'helper.py': PY_KILL }, 'hardline'],
  [
    'python3 main.py',
    {
      'main.py': 'from pkg.sub import mod\n',
      'pkg/__init__.py': '',
      'pkg/sub/__init__.py': '',
      'pkg/sub/mod.py': PY_KILL,
    },
    'hardline',
  ],
  ['python3 app/main.py', { 'app/main.py': 'from . import x\nimport util\n', 'app/util.py': PY_KILL }, 'hardline'],
  [
    'python3 main.py',
    { 'main.py': 'import a\n', 'a.py': 'import b\n', 'b.py': 'import c\n', 'c.py': 'import d\n', 'd.py': PY_KILL },
    'hardline',
  ],
  ['python3 main.py', { 'main.py': 'import json, os\nimport helper\nprint(helper.X)\n', 'helper.py': 'X = 1\n' }, null],
  [
    'python3 main.py',
    {
      'main.py': 'import sys, os\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))\nimport plug\n',
      'lib/plug.py': PY_KILL,
    },
    'hardline',
  ],
  ['python3 main.py', { 'main.py': 'import sys\nsys.path.append(sys.argv[1])\n' }, 'dangerous'],
  ['python3 main.py', { 'main.py': 'import importlib, sys\nimportlib.import_module(sys.argv[1])\n' }, 'dangerous'],
  ['python3 main.py', { 'main.py': 'import runpy\nrunpy.run_path("tool.py")\n', 'tool.py': PY_KILL }, 'hardline'],
  ['python -m pkg', { 'pkg/__init__.py': '', 'pkg/__main__.py': PY_KILL }, 'hardline'],
  ['python -c "import helper"', { 'helper.py': PY_KILL }, 'hardline'],
  ['PYTHONPATH=lib python3 -c "import plug"', { 'lib/plug.py': PY_KILL }, 'hardline'],
  ['PYTHONSTARTUP=start.py python3', { 'start.py': PY_KILL }, 'hardline'],
  ['pytest', { 'conftest.py': PY_KILL, 'tests/test_a.py': 'def test_a():\n    assert 1\n' }, 'hardline'],
  ['pytest tests', { 'tests/unit/conftest.py': PY_KILL, 'tests/unit/test_a.py': '' }, 'hardline'],
  ['python -m pytest -q', { 'tests/test_a.py': `import os\ndef test_a():\n    os.system("${KILL}")\n` }, 'hardline'],
  ['pytest -p myplugin', { 'myplugin.py': PY_KILL }, 'hardline'],
  ['pytest', { 'pytest.ini': '[pytest]\naddopts = -p evilplug\n', 'evilplug.py': PY_KILL }, 'hardline'],
  ['pytest', { 'tests/test_a.py': 'def test_a():\n    assert 1 + 1 == 2\n' }, null],
  ['python -m unittest', { 'test_x.py': PY_KILL }, 'hardline'],
  ['nox', { 'noxfile.py': PY_KILL }, 'hardline'],
  ['pip install -e .', { 'setup.py': PY_KILL }, 'hardline'],
  ['node -r ./x.js app.js', { 'x.js': JS_KILL, 'app.js': 'console.log(1)' }, 'hardline'],
  ['node --import ./x.mjs app.js', { 'x.mjs': JS_KILL, 'app.js': '' }, 'hardline'],
  ['node --require=./x app.js', { 'x.js': JS_KILL, 'app.js': '' }, 'hardline'],
  ['node -e "require(\'./x\')"', { 'x.js': JS_KILL }, 'hardline'],
  ["NODE_OPTIONS='--require ./x.js' node app.js", { 'x.js': JS_KILL, 'app.js': '' }, 'hardline'],
  [
    'node app.js',
    { 'app.js': "import './lib/a.js'\n", 'lib/a.js': "export * from './b.js'\n", 'lib/b.js': JS_KILL },
    'hardline',
  ],
  ['node app.js', { 'app.js': 'const m = require(process.argv[2])\n' }, 'dangerous'],
  [
    'npx tsx app.ts',
    {
      'app.ts': "import { f } from './f'\nf()\n",
      'f.ts': `export const f = (): void => { require('child_process').execSync('${KILL}') }\n`,
    },
    'hardline',
  ],
  ['node app.js', { 'app.js': "const { join } = require('node:path')\nconsole.log(join('a', 'b'))\n" }, null],
  ['npx vitest run', { 'src/a.test.ts': JS_KILL }, 'hardline'],
  ['npx vitest run', { 'vitest.config.ts': JS_KILL }, 'hardline'],
  ['node --test', { 'test/a.test.mjs': JS_KILL }, 'hardline'],
  ['npx eslint .', { 'eslint.config.js': JS_KILL }, 'hardline'],
  ['ruby -r ./evil.rb -e 1', { 'evil.rb': `system("${KILL}")` }, 'hardline'],
  ['ruby -I lib -r evil -e 1', { 'lib/evil.rb': `system("${KILL}")` }, 'hardline'],
  ['ruby main.rb', { 'main.rb': "require_relative 'lib/x'\n", 'lib/x.rb': `system("${KILL}")` }, 'hardline'],
  ['RUBYOPT=-r./evil ruby -e 1', { 'evil.rb': `system("${KILL}")` }, 'hardline'],
  ['perl -I. -MEvil -e 1', { 'Evil.pm': `system("${KILL}"); 1;` }, 'hardline'],
  ['PERL5OPT=-MEvil PERL5LIB=. perl -e 1', { 'Evil.pm': `system("${KILL}"); 1;` }, 'hardline'],
  ['php -d auto_prepend_file=evil.php -r 1', { 'evil.php': `<?php system("${KILL}");` }, 'hardline'],
  ['php index.php', { 'index.php': "<?php include 'lib.php';", 'lib.php': `<?php system("${KILL}");` }, 'hardline'],
  ['lua -l evil', { 'evil.lua': `os.execute("${KILL}")` }, 'hardline'],
  // Lua 5.4 runs LUA_INIT_5_4, not LUA_INIT, when both are set.
  ["LUA_INIT='print(1)' LUA_INIT_5_4=@evil.lua lua -e 1", { 'evil.lua': `os.execute("${KILL}")` }, 'hardline'],
  ['LD_PRELOAD=./evil.so ls', {}, 'dangerous'],
  ['BASH_ENV=./env.sh bash -c true', { './env.sh': KILL }, 'hardline'],
  ['bash --rcfile rc.sh -i', { 'rc.sh': KILL }, 'hardline'],
  ['npm test --script-shell=./sh.sh', { 'package.json': '{"scripts":{"test":"vitest"}}', './sh.sh': KILL }, 'hardline'],
  ['npm start', { 'package.json': '{"name":"x"}', 'server.js': JS_KILL }, 'hardline'],
  ['just build', { justfile: `build:\n    ${KILL}\n` }, 'hardline'],
  ['task build', { 'Taskfile.yml': `version: '3'\ntasks:\n  build:\n    cmds:\n      - ${KILL}\n` }, 'hardline'],
  ['rake', { Rakefile: `task :default do\n  system("${KILL}")\nend\n` }, 'hardline'],
  ['echo "import os" > site-packages/x.pth', {}, 'dangerous'],
];

/** An interpreter reading its program from standard input set by redirect forms other than its own `< FILE`. */
const STDIN: Row[] = [
  ['sh 0<M.txt', { 'M.txt': KILL }, 'hardline'],
  ['{ sh; } < M.txt', { 'M.txt': KILL }, 'hardline'],
  ['(sh) < M.txt', { 'M.txt': KILL }, 'hardline'],
  ['exec 3<M.txt; sh <&3', { 'M.txt': KILL }, 'hardline'],
  ['exec <M.txt; sh', { 'M.txt': KILL }, 'hardline'],
  ['exec 0<M.txt; bash -s', { 'M.txt': KILL }, 'hardline'],
  ['python3 0<p.py', { 'p.py': PY_KILL }, 'hardline'],
  ['{ python3 -; } < p.py', { 'p.py': PY_KILL }, 'hardline'],
  ['if true; then node; fi < j.js', { 'j.js': JS_KILL }, 'hardline'],
  ['while read l; do sh; done < M.txt', { 'M.txt': KILL }, 'hardline'],
  ['cat ok.txt | { sh; } < M.txt', { 'M.txt': KILL, 'ok.txt': 'echo hi\n' }, 'hardline'],
  ['cat ok.txt | sh < M.txt', { 'M.txt': KILL, 'ok.txt': 'echo hi\n' }, 'hardline'],
  ['sh <&3', {}, 'dangerous'],
  // Look-alikes: the same forms with a harmless program, a group that only reads data, a redirect in a child shell.
  ['{ sh; } < ok.txt', { 'ok.txt': 'echo hi\n' }, null],
  ['exec 3<ok.txt; sh <&3', { 'ok.txt': 'echo hi\n' }, null],
  ['while read -r l; do echo "$l"; done < M.txt', { 'M.txt': KILL }, null],
  ["sh -c 'exec <M.txt'; sh", { 'M.txt': KILL }, null],
  ['exec >build.log 2>&1; ls', {}, null],
];

/** xargs appending what it reads to an interpreter's arguments: the data names the program. */
const XARGS: Row[] = [
  ['xargs sh < list.txt', { 'list.txt': 'evil.sh\n', 'evil.sh': KILL }, 'dangerous'],
  ['xargs -a list.txt sh', { 'list.txt': 'evil.sh\n', 'evil.sh': KILL }, 'dangerous'],
  ['cat list.txt | xargs bash', { 'list.txt': 'evil.sh\n', 'evil.sh': KILL }, 'dangerous'],
  ['xargs python3', {}, 'dangerous'],
  ['echo evil.sh | xargs sh', { 'evil.sh': KILL }, 'hardline'],
  ["printf 'a.py\\nevil.py\\n' | xargs -n1 python3", { 'a.py': 'print(1)\n', 'evil.py': PY_KILL }, 'hardline'],
  // Look-alikes: the program is named in the line and the data are its arguments, or the data is literal and harmless.
  ['echo ok.sh | xargs sh', { 'ok.sh': 'echo hi\n' }, null],
  ['ls *.csv | xargs python3 count.py', { 'count.py': 'import sys\nprint(len(sys.argv))\n' }, null],
  ["find . -name '*.py' | xargs python3 -m py_compile", {}, null],
  ["git ls-files '*.sh' | xargs bash -n", {}, null],
];

/** A shell fed data other ways: xargs with any replacement string, script, parallel without a command, coproc. */
const FED: Row[] = [
  ['cat bad.sh | xargs -I% sh -c %', { 'bad.sh': KILL }, 'dangerous'],
  ['xargs -a bad.sh -I% sh -c %', { 'bad.sh': KILL }, 'dangerous'],
  ['cat bad.sh | xargs --replace sh -c {}', { 'bad.sh': KILL }, 'dangerous'],
  ['cat bad.sh | xargs -I X sh -c X', { 'bad.sh': KILL }, 'dangerous'],
  ['cat bad.sh | xargs -iZ python3 -c Z', { 'bad.sh': KILL }, 'dangerous'],
  ['script -q -c sh /dev/null < bad.sh', { 'bad.sh': KILL }, 'hardline'],
  ['cat bad.sh | script -q /dev/null', { 'bad.sh': KILL }, 'hardline'],
  ["script -qc 'kill -9 -1' /dev/null", {}, 'hardline'],
  ['coproc sh; cat bad.sh >&${COPROC[1]}', { 'bad.sh': KILL }, 'dangerous'],
  ['coproc W { sh; }; cat bad.sh >&"${W[1]}"', { 'bad.sh': KILL }, 'dangerous'],
  ['parallel -a bad.sh', { 'bad.sh': KILL }, 'hardline'],
  ['parallel :::: bad.sh', { 'bad.sh': KILL }, 'hardline'],
  ['cat bad.sh | parallel', { 'bad.sh': KILL }, 'hardline'],
  ['parallel ::: "kill -9 -1"', {}, 'hardline'],
  // A command made only of replacement strings runs each value; values are joined; --pipe feeds it; sem runs once.
  ["parallel {} ::: 'rm -rf /'", {}, 'hardline'],
  ['parallel -N2 {1} {2} ::: rm -rf ::: /', {}, 'hardline'],
  ['cat bad.sh | parallel {}', { 'bad.sh': KILL }, 'hardline'],
  ["parallel 'rm -rf {}' ::: /", {}, 'hardline'],
  ["echo 'rm -rf ~' | parallel --pipe sh", {}, 'hardline'],
  ['cat bad.sh | parallel --pipepart bash', { 'bad.sh': KILL }, 'hardline'],
  ['sem rm -rf ~', {}, 'hardline'],
  ['sem --id deploy -j1 kill -9 -1', {}, 'hardline'],
  // Look-alikes: the replacement string is data for a program that does not run it, or the shell's input is harmless.
  ['ls | xargs -I% echo %', {}, null],
  ['cat list.txt | xargs -I X wc -l X', {}, null],
  ["find . -name '*.txt' | xargs --replace cp {} backup/", {}, null],
  ["script -q -c 'ls -la' /dev/null", {}, null],
  ['script -q /dev/null', {}, null],
  ['parallel -a jobs.txt', { 'jobs.txt': 'echo a\necho b\n' }, null],
  ['parallel ::: "echo a" "echo b"', {}, null],
  ['parallel gzip ::: a.log b.log', {}, null],
  ["parallel -j4 'convert {} {.}.png' ::: a.jpg b.jpg", {}, null],
  ["find . -name '*.txt' | parallel wc -l", {}, null],
  ['parallel --dry-run echo ::: a b', {}, null],
  ['ls | parallel echo', {}, null],
  ["parallel 'echo {}' ::: 'a; rm -rf ~'", {}, null],
  ['parallel {1} {2} ::: echo ::: a b', {}, null],
  ['sem -j2 make test', {}, null],
  ['coproc cat', {}, null],
  ['coproc W { cat; }', {}, null],
];

/** A command name found through a lookup the line changed: PATH with a task directory first, hash -p. */
const LOOKUP: Row[] = [
  ['PATH=$PWD/bin:$PATH; x', { 'bin/x': KILL }, 'hardline'],
  ['export PATH=$PWD/bin:$PATH; x', { 'bin/x': KILL }, 'hardline'],
  ['export PATH="bin:$PATH" && make', { 'bin/make': KILL }, 'hardline'],
  ['PATH=./tools:$PATH git status', { 'tools/git': KILL }, 'hardline'],
  ['hash -p ./bin/y ls; ls', { 'bin/y': KILL }, 'hardline'],
  ['export PATH=$PWD/bin:$PATH; cp /tmp/q bin/ls; ls', {}, 'dangerous'],
  // Look-alikes: the directory holds no program of that name, holds a harmless one, or is installed.
  ['export PATH=$PWD/bin:$PATH; ls', { 'bin/x': KILL }, null],
  ['export PATH="./node_modules/.bin:$PATH"; eslint .', { 'node_modules/.bin/eslint': 'echo lint\n' }, null],
  ['export PATH=/usr/local/go/bin:$PATH; go build', {}, null],
  ['hash -p ./bin/y ls', { 'bin/y': KILL }, 'hardline'],
  ['hash -p ./bin/y ls; ls', { 'bin/y': 'echo hi\n' }, null],
  ['hash -p /usr/bin/python3 python; python -V', {}, null],
];

const EVIL_CFG = '[core]\n\tpager = kill -9 -1\n';
/** A lookup moved by an assignment on the command itself or earlier in the line: judged like the exported form. */
const COMMAND_SETTINGS: Row[] = [
  ['XDG_CONFIG_HOME=. git status', { 'git/config': EVIL_CFG }, 'hardline'],
  ['env XDG_CONFIG_HOME=. git status', { 'git/config': EVIL_CFG }, 'hardline'],
  ['HOME=h git log', { 'h/.config/git/config': EVIL_CFG }, 'hardline'],
  ['HOME=. git status', { '.gitconfig': EVIL_CFG }, 'hardline'],
  ['HOME=x XDG_CONFIG_HOME=x git log', { 'x/.gitconfig': EVIL_CFG }, 'hardline'],
  ['GIT_CONFIG_GLOBAL=gitcfg git status', { gitcfg: EVIL_CFG }, 'hardline'],
  [`NODE_PATH=sub node -e 'require("bad")'`, { 'sub/bad.js': JS_KILL }, 'hardline'],
  [`env NODE_PATH=sub node -e 'require("bad")'`, { 'sub/bad.js': JS_KILL }, 'hardline'],
  [`export NODE_PATH=sub; node -e 'require("bad")'`, { 'sub/bad.js': JS_KILL }, 'hardline'],
  [`PYTHONPATH=sub; python3 -c 'import bad'`, { 'sub/bad.py': PY_KILL }, 'hardline'],
  ['HOME=. npm ci', {}, 'dangerous'],
  ['env XDG_CONFIG_HOME=cfg nvim', {}, 'dangerous'],
  // Look-alikes: the configuration is harmless, the value is the variable's own, or nothing is looked up by it.
  ['HOME=h git log', { 'h/.gitconfig': '[user]\n\tname = x\n' }, null],
  ['env -i HOME=$HOME PATH=/usr/bin:/bin bash --noprofile --norc -c "ls"', {}, null],
  [`NODE_PATH=sub node -e 'require("fs")'`, { 'sub/x.js': 'module.exports = 1\n' }, null],
  [`NODE_PATH=sub node -e 'require("lib")'`, { 'sub/lib.js': 'module.exports = 1\n' }, null],
  ['NODE_ENV=production node -e "console.log(1)"', {}, null],
  ['LANG=C git status', {}, null],
];

describe('routes that ran unasked (issue 33), with the files the gate reads', () => {
  for (const [family, rows] of [
    ['interpreters reading program text from a file or an option', INTERPRETERS],
    ['scripts named by globs', GLOBS],
    ['git running commands', GIT],
    ['local code imported or preloaded', LOCAL_CODE],
    ['interpreters reading standard input set by a group, a descriptor or exec', STDIN],
    ['xargs running an interpreter with the items it reads', XARGS],
    ['a shell fed data through xargs, script, parallel or coproc', FED],
    ['programs found through a changed lookup', LOOKUP],
    ['configuration and modules found through a setting of the command', COMMAND_SETTINGS],
  ] as const)
    describe(family, () => {
      it.each(rows)('%s', async (command, files, tier) => {
        const r = await judged(command, files);
        expect(r.tier, JSON.stringify(r.rules)).toBe(tier);
      });
    });

  it('reports every file it read in one place, with its text (what the verdict was reached on)', async () => {
    const r = await judged('python3 main.py', { 'main.py': 'import helper\n', 'helper.py': 'X = 1\n' });
    expect(r.scripts).toEqual(expect.arrayContaining(['main.py', 'helper.py']));
    const hooks = await judged('git commit -m x', { '.git/': '', '.git/hooks/pre-commit': 'echo ok\n' });
    expect(hooks.scripts).toContain('.git/hooks/pre-commit');
  });

  it('asks when a module cannot be read, and when an earlier command of the line may make it', async () => {
    expect((await judged('python3 main.py', { 'main.py': 'import helper\n', 'helper.py/': '' })).tier).toBeNull();
    const big = await judgeSubject(
      { text: 'python3 main.py' },
      CWD,
      async (keys) =>
        new Map(
          keys.map((k): [string, ScriptFile] => [
            k,
            k === 'main.py'
              ? { text: 'import helper\n' }
              : k === 'helper.py'
                ? { error: 'is too big to check' }
                : { missing: true },
          ]),
        ),
    );
    expect(big.verdict.findings.map((f) => f.rule)).toContain('unread-script');
    expect(
      (await judged('cp /tmp/evil.py helper.py && python3 main.py', { 'main.py': 'import helper\n' })).rules,
    ).toContain('unread-script');
  });

  it('bounds transitive imports: a chain deeper than the reads allowed asks', async () => {
    const disk: Record<string, string> = { 'main.py': 'import m0\n' };
    for (let i = 0; i < 20; i += 1) disk[`m${i}.py`] = `import m${i + 1}\n`;
    const r = await judged('python3 main.py', disk);
    expect(r.rules).toContain('unread-script');
    const shallow: Record<string, string> = {
      'main.py': Array.from({ length: 20 }, (_, i) => `import m${i}`).join('\n'),
    };
    for (let i = 0; i < 20; i += 1) shallow[`m${i}.py`] = 'X = 1\n';
    expect((await judged('python3 main.py', shallow)).tier).toBeNull();
  });
});
