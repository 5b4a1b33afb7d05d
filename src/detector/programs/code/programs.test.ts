import { beforeAll, describe, expect, it } from 'vitest';
import { judgeSubject } from '../../../approval/assess.js';
import { detect } from '../../engine/detect.js';
import { loadBashParser, type ParseBash } from '../../engine/parser.js';
import type { ScriptFile } from '../../engine/scripts.js';
import { listedDir, prefetchOf, shebangLanguage, scriptKey } from '../../engine/scripts.js';
import { loadProgramReader, type ReadProgram } from './load.js';

let parse: ParseBash;
let programs: ReadProgram;
beforeAll(async () => {
  parse = await loadBashParser();
  programs = await loadProgramReader();
});

const CWD = '/work/proj';
const judge = (code: string, language: string) => detect(parse, code, { cwd: CWD, programs, language });
const rules = (code: string, language: string): string[] => judge(code, language).findings.map((f) => f.rule);

/** [program, tier or null, a rule it must report] */
const PYTHON: [string, 'hardline' | 'dangerous' | null, string?][] = [
  ["import os; os.system('r'+'m -rf /')", 'hardline', 'delete-root'],
  ["import subprocess as sp\nsp.run(['kill', '-9', '-1'])", 'hardline', 'kill-all'],
  ['import os, signal\nos.kill(-1, signal.SIGKILL)', 'hardline', 'kill-all'],
  ["x = ''.join(['r', 'm', ' -rf ~'])\n__import__('os').system(x)", 'hardline', 'delete-home'],
  ["import os\nos.system(chr(114) + chr(109) + ' -rf /')", 'hardline', 'delete-root'],
  ["import base64, os\nos.system(base64.b64decode('a2lsbCAtOSAtMQ==').decode())", 'hardline', 'kill-all'],
  ["from os import system as s\ns('kill -9 -1')", 'hardline', 'kill-all'],
  ["from subprocess import *\ncall('kubectl delete ns prod', shell=True)", 'dangerous', 'kubectl-delete'],
  ["import os\nos.execvp('rm', ['rm', '-rf', '/'])", 'hardline', 'delete-root'],
  ["import pty\npty.spawn(['bash', '-c', 'kill -9 -1'])", 'hardline', 'kill-all'],
  ["import shutil\nshutil.rmtree('/etc')", 'hardline', 'delete-system-dir'],
  ["import os\ncmd = 'ki' + 'll -9 -1'[::-1][::-1]\nos.system(cmd)", 'hardline', 'kill-all'],
  ['import subprocess\nsubprocess.run(cmd, shell=True)', 'dangerous', 'dynamic-command'],
  ["import os\nos.system(f'rm -rf {target}')", 'dangerous', 'dynamic-command'],
  ["import os\ngetattr(os, 'sys' + name)('ls')", 'dangerous', 'dynamic-command'],
  ['exec("import os; os.system(\'kill -9 -1\')")', 'hardline', 'kill-all'],
  ['exec(code)', 'dangerous', 'dynamic-command'],
  ['import os\nos.kill(pid, 9)', 'dangerous', 'dynamic-command'],
  ['def broken(:\n  pass', 'dangerous', 'dynamic-command'],
  // ordinary programs
  ["print('hello')", null],
  ["import subprocess\nprint(subprocess.run(['git', 'status'], capture_output=True).stdout)", null],
  ["import shutil\nshutil.rmtree('build')", null],
  ['import os\nos.kill(os.getpid(), 0)', null],
  [
    "import subprocess, signal\np = subprocess.Popen(['sleep', '5'])\np.send_signal(signal.SIGTERM)\nos.kill(p.pid, 15)",
    null,
  ],
  ['import os\nprint(os.listdir("."))', null],
  // a known program with computed arguments is judged with them unknown
  // the one-liner patterns (checks/code.ts) apply on top of the grammar: they ask for a command built at run time
  ["import subprocess\nsubprocess.run(['git', 'log', f'-{n}'])", 'dangerous', 'dynamic-command'],
  ["import subprocess\nsubprocess.run(['rm', '-rf', target])", 'dangerous', 'recursive-delete'],
  ["import subprocess\nsubprocess.run([prog, '-x'])", 'dangerous', 'dynamic-command'],
];

const JAVASCRIPT: [string, 'hardline' | 'dangerous' | null, string?][] = [
  ["import { execSync } from 'node:child_process';\nexecSync('r' + 'm -rf /');", 'hardline', 'delete-root'],
  ["const cp = require('child_process');\ncp.spawn('kill', ['-9', '-1']);", 'hardline', 'kill-all'],
  ["const { exec: run } = require('node:child_process');\nrun(`kill -9 -1`);", 'hardline', 'kill-all'],
  ["process.kill(-1, 'SIGKILL');", 'hardline', 'kill-all'],
  ["import fs from 'node:fs';\nfs.rmSync('/usr', { recursive: true });", 'hardline', 'delete-system-dir'],
  [
    "import { rm } from 'node:fs/promises';\nawait rm(process.env.HOME, { recursive: true });",
    'dangerous',
    'dynamic-command',
  ],
  ["import cp from 'child_process';\ncp.execSync(['ki', 'll -9 -1'].join(''));", 'hardline', 'kill-all'],
  [
    "import cp from 'child_process';\ncp.execSync(Buffer.from('a2lsbCAtOSAtMQ==', 'base64').toString());",
    'hardline',
    'kill-all',
  ],
  [
    "import cp from 'child_process';\ncp.execSync(String.fromCharCode(107, 105, 108, 108) + ' -9 -1');",
    'hardline',
    'kill-all',
  ],
  ["const { exec } = require('child_process');\nexec(process.argv[2]);", 'dangerous', 'dynamic-command'],
  ["import cp from 'child_process';\ncp['ex' + 'ecSync'](x);", 'dangerous', 'dynamic-command'],
  ["eval(\"require('child_process').execSync('kill -9 -1')\")", 'hardline', 'kill-all'],
  ["import cp from 'child_process';\ncp.spawn('rm', ['-rf', '/'], { shell: true });", 'hardline', 'delete-root'],
  ['const x = ;', 'dangerous', 'dynamic-command'],
  // ordinary programs
  ['console.log(1 + 1);', null],
  [
    "import { execFileSync } from 'node:child_process';\nconsole.log(execFileSync('git', ['status']).toString());",
    null,
  ],
  ["import fs from 'node:fs';\nfs.rmSync('dist', { recursive: true, force: true });", null],
  ["import fs from 'node:fs';\nfs.rmSync('/etc/passwd.bak');", 'dangerous', 'interpreter-delete'],
  ["import { spawn } from 'node:child_process';\nconst c = spawn('sleep', ['5']);\nprocess.kill(c.pid);", null],
  ["import { spawn } from 'node:child_process';\nspawn('git', ['log', branch]);", 'dangerous', 'dynamic-command'],
  ["import { spawn } from 'node:child_process';\nspawn('git', [...args]);", 'dangerous', 'dynamic-command'],
];

/** routes4: a child's standard input carrying its program, argv built by create_subprocess_exec, a module written then imported. */
const STDIN_PROGRAMS: [string, string, 'hardline' | 'dangerous' | null, string?][] = [
  ['python', 'import subprocess\nsubprocess.run(["sh"], input=b"kill -9 -1")', 'hardline', 'kill-all'],
  ['python', 'import subprocess\nsubprocess.run("sh", shell=True, input=b"kill -9 -1")', 'hardline', 'kill-all'],
  ['python', 'import subprocess\nsubprocess.Popen(["bash"], stdin=open("x"))', 'dangerous', 'dynamic-command'],
  [
    'python',
    'import subprocess\np = subprocess.Popen(["python3"], stdin=subprocess.PIPE)\np.communicate(code)',
    'dangerous',
    'dynamic-command',
  ],
  ['python', 'import subprocess\nsubprocess.run(["sh", "-s"], input=cmd.encode())', 'dangerous', 'dynamic-command'],
  [
    'python',
    'import asyncio\nasync def main():\n    await asyncio.create_subprocess_exec("kubectl", "delete", "pod", "demo")\nasyncio.run(main())',
    'dangerous',
    'kubectl-delete',
  ],
  ['python', 'import shutil\nshutil.copy("p.txt", "helper.py")\nimport helper', 'dangerous', 'unread-script'],
  ['python', 'with open("out.py", "w") as f:\n    f.write(src)\nimport out', 'dangerous', 'unread-script'],
  [
    'javascript',
    "const cp = require('child_process');\ncp.spawnSync('sh', [], { input: 'kill -9 -1' });",
    'hardline',
    'kill-all',
  ],
  [
    'javascript',
    "const cp = require('child_process');\ncp.execFileSync('bash', [], { input: x });",
    'dangerous',
    'dynamic-command',
  ],
  [
    'javascript',
    "const cp = require('child_process');\nconst p = cp.spawn('sh');\np.stdin.write(cmd);",
    'dangerous',
    'dynamic-command',
  ],
  [
    'javascript',
    "const cp = require('child_process');\ncp.execSync('bash', { input: 'kill -9 -1' });",
    'hardline',
    'kill-all',
  ],
  // Look-alikes: literal harmless input, input to a program that does not run it, a script given besides the input.
  ['python', 'import subprocess\nsubprocess.run(["sh"], input=b"echo hi")', null],
  ['python', 'import subprocess\nsubprocess.run(["git", "apply"], input=patch)', null],
  ['python', 'import subprocess\nsubprocess.run(["cat"], input=data, check=True)', null],
  ['python', 'import shutil\nshutil.copy("a.txt", "b.txt")\nimport json', null],
  ['javascript', "const cp = require('child_process');\ncp.spawnSync('sh', [], { input: 'echo hi' });", null],
  [
    'javascript',
    "const cp = require('child_process');\ncp.execFileSync('bash', ['-c', 'echo hi'], { input: data });",
    null,
  ],
  ['javascript', "const cp = require('child_process');\ncp.spawn('npm', ['test']);", null],
];

describe('execute_code programs', () => {
  it.each(STDIN_PROGRAMS)('%s (standard input, argv, written module): %s', (language, code, tier, rule) => {
    const v = judge(code, language);
    expect(v.tier, JSON.stringify(v.findings.map((f) => f.rule))).toBe(tier);
    if (rule) expect(v.findings.map((f) => f.rule)).toContain(rule);
  });

  it.each(PYTHON)('python: %s', (code, tier, rule) => {
    const v = judge(code, 'python');
    expect(v.tier).toBe(tier);
    if (rule) expect(v.findings.map((f) => f.rule)).toContain(rule);
  });
  it.each(JAVASCRIPT)('javascript: %s', (code, tier, rule) => {
    const v = judge(code, 'javascript');
    expect(v.tier).toBe(tier);
    if (rule) expect(v.findings.map((f) => f.rule)).toContain(rule);
  });
  it('reads interpreter one-liners with the same grammar (python3 -c, node -e)', () => {
    expect(detect(parse, `python3 -c "import os; os.system('r'+'m -rf /')"`, { cwd: CWD, programs }).tier).toBe(
      'hardline',
    );
    expect(
      detect(parse, `node -e "require('child_process').execSync(['kill','-9','-1'].join(' '))"`, { cwd: CWD, programs })
        .tier,
    ).toBe('hardline');
    expect(rules('print(1)', 'python')).toEqual([]);
  });
});

/** execute_code routes (issue 33): computed access to dangerous functions, files written at computed paths. */
const COMPUTED: [string, string, 'hardline' | 'dangerous' | null][] = [
  ['python', 'import os\nk = "sys" + "tem"\nvars(os)[k]("kill -9 -1")', 'dangerous'],
  ['python', 'import os\nos.__dict__[name]("x")', 'dangerous'],
  ['python', 'import sys\nsys.modules[m].system("x")', 'dangerous'],
  ['python', "import sys\nsys.modules['os'].system('kill -9 -1')", 'hardline'],
  ['python', 'globals()[name]("x")', 'dangerous'],
  ['python', "__builtins__.__dict__['ex' + 'ec']('x')", 'dangerous'],
  ['python', 'import os\nlist(map(os.system, cmds))', 'dangerous'],
  ['python', 'import os, threading\nthreading.Thread(target=os.system, args=(c,)).start()', 'dangerous'],
  ['python', 'import os, functools\nf = functools.partial(os.system)\nf("x")', 'dangerous'],
  ['python', 'import operator, os\noperator.methodcaller("system", "x")(os)', 'dangerous'],
  ['python', 'import ctypes\nctypes.CDLL(None).system(b"x")', 'dangerous'],
  ['python', '().__class__.__base__.__subclasses__()', 'dangerous'],
  ['python', "import os\ns = os.system\ns('kill -9 -1')", 'hardline'],
  ['python', "import os\nprint(os.path.join('a', 'b'), os.getcwd())", null],
  ['python', "import subprocess\nsubprocess.run(['git', 'status'], stdout=subprocess.PIPE)", null],
  ['python', "d = input()\nopen(d + '/pre-commit', 'w').write('x')", 'dangerous'],
  ['python', "import os\nopen(os.path.join(d, 'hooks', name), 'w')", 'dangerous'],
  ['python', "from pathlib import Path\nPath(d).joinpath('x.pth').write_text('import os')", null],
  ['python', "open(f'{out}/report.json', 'w').write('{}')", null],
  ['python', "open(f'{name}.csv', 'w')", null],
  ['python', "import shutil\nshutil.copy('x.sh', dest)", 'dangerous'],
  ['javascript', "import cp from 'node:child_process';\n[cp.execSync][0]('kill -9 -1');", 'dangerous'],
  ['javascript', "import cp from 'node:child_process';\n['ls'].forEach(cp.execSync);", 'dangerous'],
  ['javascript', "import cp from 'node:child_process';\ncp.execSync.call(null, cmd);", 'dangerous'],
  ['javascript', "import cp from 'node:child_process';\nObject.values(cp)[3]('x');", 'dangerous'],
  ['javascript', "import cp from 'node:child_process';\nReflect.get(cp, k)('x');", 'dangerous'],
  ['javascript', "process.binding('spawn_sync');", 'dangerous'],
  ['javascript', 'const m = require(name);', 'dangerous'],
  ['javascript', "import fs from 'node:fs';\nfs.writeFileSync(`${dir}/${hook}`, 'x');", 'dangerous'],
  ['javascript', "import fs from 'node:fs';\nfs.writeFileSync(`${dir}/out.json`, '{}');", null],
  ['javascript', "import { execSync as e } from 'node:child_process';\nconst run = e;\nrun('git status');", null],
];

describe('execute_code: computed callees and computed paths (issue 33)', () => {
  it.each(COMPUTED)('%s: %s', (language, code, tier) => {
    const v = judge(code, language);
    expect(v.tier, JSON.stringify(v.findings.map((f) => f.rule))).toBe(tier);
  });
});

describe('stdin and scripts by path', () => {
  const files = (entries: Record<string, ScriptFile>) => new Map(Object.entries(entries));

  it('judges stdin as the input of the program that reads it', () => {
    expect(detect(parse, 'sh', { cwd: CWD, stdin: 'kill -9 -1\n' }).tier).toBe('hardline');
    expect(
      detect(parse, 'python3 -i', { cwd: CWD, stdin: "import os\nos.system('kill -9 -1')\n", programs }).tier,
    ).toBe('hardline');
    expect(detect(parse, 'psql app', { cwd: CWD, stdin: 'DROP TABLE users;' }).findings.map((f) => f.rule)).toContain(
      'sql-drop',
    );
    expect(detect(parse, 'cat > notes.txt', { cwd: CWD, stdin: 'kill -9 -1' }).dangerous).toBe(false);
    expect(detect(parse, 'python3 app.py', { cwd: CWD, stdin: 'rm -rf /' }).dangerous).toBe(false);
  });

  it('asks for scripts it wants and judges them by content, language from the command or the #! line', () => {
    expect(detect(parse, 'sh x.sh && ./y && python3 z.py', { cwd: CWD }).scripts).toEqual(['x.sh', './y', 'z.py']);
    const read = files({
      'x.sh': { text: 'kill -9 -1\n' },
      './y': { text: '#!/usr/bin/env python3\nimport shutil\nshutil.rmtree("/etc")\n' },
      'z.py': { missing: true },
    });
    const v = detect(parse, 'sh x.sh; ./y; python3 z.py', { cwd: CWD, files: read, programs });
    expect(v.findings.map((f) => f.rule)).toEqual(expect.arrayContaining(['kill-all', 'delete-system-dir']));
    expect(
      detect(parse, 'source big.sh', {
        cwd: CWD,
        files: files({ 'big.sh': { error: 'is too big to check' } }),
      }).findings.map((f) => f.rule),
    ).toEqual(['unread-script']);
    expect(
      detect(parse, 'cp a x.sh && sh x.sh', { cwd: CWD, files: files({ 'x.sh': { missing: true } }) }).findings.map(
        (f) => f.rule,
      ),
    ).toEqual(['unread-script']);
    expect(
      detect(parse, 'python3 -W ignore x.py', {
        cwd: CWD,
        files: files({ ignore: { missing: true }, 'x.py': { missing: true } }),
      }).dangerous,
    ).toBe(false);
    expect(detect(parse, './a.out', { cwd: CWD, files: files({ './a.out': { binary: true } }) }).dangerous).toBe(false);
    expect(detect(parse, '/usr/bin/python3 --version', { cwd: CWD }).scripts).toBeUndefined();
    expect(detect(parse, 'cd sub && sh x.sh', { cwd: CWD }).scripts).toEqual(['sub/x.sh']);
    expect(detect(parse, 'cd "$D" && sh x.sh', { cwd: CWD }).findings.map((f) => f.rule)).toEqual(['unread-script']);
  });

  it('asks for a program nested past any real one instead of parsing it (the native parser overflowed its stack)', async () => {
    const deep = `${'['.repeat(20000)}${']'.repeat(20000)}`;
    for (const text of [`node -e "${deep}"`, `python3 -c "${deep}"`]) {
      const { verdict } = await judgeSubject({ text }, CWD);
      expect(verdict.dangerous).toBe(true);
    }
    const { verdict } = await judgeSubject({ text: deep, language: 'javascript' }, CWD);
    expect(verdict.findings.map((f) => f.description).join()).toMatch(/nests more than 500 levels/);
  });

  it('reads scripts that run scripts, a bounded number of rounds', async () => {
    const disk: Record<string, string> = { 'a.sh': 'sh b.sh\n', 'b.sh': '. ./c.sh\n', './c.sh': 'kill -9 -1\n' };
    const asked: string[][] = [];
    const { verdict, scripts } = await judgeSubject({ text: 'bash a.sh' }, CWD, async (keys) => {
      asked.push(keys.filter((k) => listedDir(k) === undefined && prefetchOf(k) === undefined));
      return new Map(keys.map((k) => [k, disk[k] !== undefined ? { text: disk[k]! } : { missing: true as const }]));
    });
    expect(asked).toEqual([['a.sh'], ['b.sh'], ['./c.sh']]);
    expect(verdict.tier).toBe('hardline');
    expect([...scripts.keys()]).toEqual(['a.sh', 'b.sh', './c.sh']);
  });

  it('names script paths and languages', () => {
    expect(scriptKey('x.sh', { project: CWD, cwd: CWD })).toBe('x.sh');
    expect(scriptKey('/usr/local/bin/tool', { project: CWD, cwd: CWD })).toBeUndefined();
    expect(scriptKey('x.sh', { project: CWD, cwd: null })).toBeNull();
    expect(shebangLanguage('#!/bin/bash\n')).toBeNull();
    expect(shebangLanguage('#!/usr/bin/env -S python3 -u\n')).toBe('python');
    expect(shebangLanguage('#!/usr/bin/env node\n')).toBe('javascript');
    expect(shebangLanguage('#!/usr/bin/awk -f\n')).toBe('awk');
    expect(shebangLanguage('#!/usr/bin/env -S tclsh\n')).toBe('tcl');
    expect(shebangLanguage('#!/usr/bin/env ocaml\n')).toBeUndefined();
    expect(shebangLanguage('echo no shebang\n')).toBeNull();
  });
});

describe('input to a background process judged alone', () => {
  it('reports only what the input adds to the command the process started with', async () => {
    const judged = await judgeSubject({ text: 'kubectl delete pod x; bash', stdin: 'ls\n', inputOnly: true }, CWD);
    expect(judged.verdict.dangerous).toBe(false);
    const bad = await judgeSubject({ text: 'kubectl delete pod x; bash', stdin: 'kill -9 -1\n', inputOnly: true }, CWD);
    expect(bad.verdict.findings.map((f) => f.rule)).toEqual(['kill-all']);
  });
});

/** execute_code programs that feed a shell, run code from text or load a module they make first (issue 33, H). */
const FED_AND_MADE: [string, string, 'hardline' | 'dangerous' | null][] = [
  ['python', 'import os\nos.popen("sh", "w").write("kill -9 -1")', 'hardline'],
  ['python', 'import os\nos.popen("sh", "w").write(data)', 'dangerous'],
  ['python', 'import os\np = os.popen("sh", "w")\np.write(payload)', 'dangerous'],
  ['python', 'import subprocess as sp\nsp.Popen(["sh"], stdin=sp.PIPE).communicate(b"kill -9 -1")', 'hardline'],
  ['python', 'import os\nos.link("sub/bad.py", "m6.py")\nimport m6', 'dangerous'],
  ['python', 'import subprocess\nsubprocess.run(["cp", "sub/bad.py", "ok.py"])\nimport ok', 'dangerous'],
  ['python', 'import shutil\nshutil.copy("sub/bad.py", "ok.py")\nimport ok', 'dangerous'],
  [
    'javascript',
    "const vm = require('vm');\nvm.runInThisContext(require('fs').readFileSync('sub/bad2.js', 'utf8'));",
    'dangerous',
  ],
  ['javascript', "const vm = require('vm');\nvm.runInNewContext(code, {});", 'dangerous'],
  ['javascript', "const vm = require('vm');\nnew vm.Script(src).runInThisContext();", 'dangerous'],
  [
    'javascript',
    "const vm = require('vm');\nvm.runInThisContext(\"require('child_process').execSync('kill -9 -1')\");",
    'hardline',
  ],
  [
    'javascript',
    'const fs = require("fs");\nfs.cpSync("sub/bad2.js", "m4.mjs");\nawait import("./m4.mjs");',
    'dangerous',
  ],
  ['javascript', 'await import(process.argv[2]);', 'dangerous'],
  ['javascript', 'process.getBuiltinModule("child_process").spawn("sh").stdin.end("kill -9 -1");', 'hardline'],
  ['javascript', 'require("child_process").exec("sh").stdin.end("kill -9 -1");', 'hardline'],
  ['javascript', 'require("child_process").spawn("sh").stdin.end(data);', 'dangerous'],
  // Look-alikes: output read from a command, a copy of data, literal harmless code, a module not written.
  ['python', 'import os\nprint(os.popen("ls").read())', null],
  ['python', 'import os\nos.popen("cat", "w").write("hello")', null],
  ['python', 'import os\np = os.popen("cat > notes.txt", "w")\np.write(text)', null],
  ['python', 'import os\nos.popen("sh", "w").write("echo hi")', null],
  ['python', 'import subprocess\nsubprocess.run(["cp", "a.txt", "b.txt"])\nimport json', null],
  ['python', 'import shutil\nshutil.copy("ok.py", "backup/ok.py")\nimport ok', null],
  ['javascript', "const vm = require('vm');\nconsole.log(vm.runInNewContext('1 + 1'));", null],
  ['javascript', 'require("child_process").spawn("ls").stdout.pipe(process.stdout);', null],
  ['javascript', 'const cp = process.getBuiltinModule("child_process");\ncp.execSync("git status");', null],
  [
    'javascript',
    'const fs = require("fs");\nfs.cpSync("src", "dist", { recursive: true });\nawait import("./m4.mjs");',
    null,
  ],
];

describe('execute_code: a shell fed by the program, code from text, modules made first', () => {
  const disk: Record<string, string> = {
    'sub/bad.py': "import os\nos.system('kill -9 -1')\n",
    'ok.py': 'print(1)\n',
    'sub/bad2.js': "require('child_process').execSync('kill -9 -1')\n",
    'm4.mjs': 'export const x = 1;\n',
  };
  it.each(FED_AND_MADE)('%s: %s', async (language, code, tier) => {
    const { verdict } = await judgeSubject({ text: code, language }, CWD, (keys) =>
      Promise.resolve(
        new Map(
          keys.map((k): [string, ScriptFile] => {
            const rel = k.replace(/^\.\//, '');
            return [k, disk[rel] !== undefined ? { text: disk[rel] } : { missing: true }];
          }),
        ),
      ),
    );
    expect(verdict.tier, JSON.stringify(verdict.findings.map((f) => f.rule))).toBe(tier);
  });
});
