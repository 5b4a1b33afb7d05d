// The route families of issue 33 through the real worker in manual mode (dev server, registry, local environment):
// program text from files and options, scripts named by globs, git running commands and hooks, project code imported
// or preloaded, execute_code's computed callees and paths. Each member waits for approval (denied here, so its marker
// file is never made); each benign look-alike runs without asking. Dangerous payloads are `kubectl delete pod demo`,
// which asks (and fails harmlessly if it ran).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Harness } from './support/agent-harness.js';

import { call, denied, routeSuite, runDenying as denyAll, runFamily } from './support/deny-all.js';
import { type Step } from './support/scripted-model.js';

let h: Harness;
const { project } = routeSuite('routes', (made) => (h = made));

const runDenying = (cwd: string, steps: Step[]): ReturnType<typeof denyAll> =>
  denyAll(h, cwd, steps, { idPrefix: 'routes' });

const payload = (marker: string): string => `touch ${marker}; kubectl delete pod demo 2>/dev/null`;
const write = (path: string, content: string): Step => call('write_file', { path, content });
const terminal = (command: string, extra: Record<string, unknown> = {}): Step =>
  call('terminal', { command, ...extra });

const family = (
  cwd: string,
  setup: Step[],
  cases: { command: string; marker: string; stdin?: string }[],
  benign: { command: string; expect: RegExp }[],
): Promise<void> => runFamily(h, cwd, 'routes', setup, cases, benign);

describe('routes that ran unasked (issue 33), through the worker in manual mode', () => {
  it('interpreters reading program text from a file or an option', async () => {
    const cwd = project();
    await family(
      cwd,
      [
        write('evil.awk', `BEGIN { system("${payload('m1')}") }\n`),
        write('evil.sed', `1e ${payload('m2')}\n`),
        write('payload.txt', `${payload('m3')}\n`),
        write('g.sh', `${payload('m4')}\n`),
        write('evil.tcl', `exec sh -c {${payload('m5')}}\n`),
        write('cmds.ex', `!${payload('m6')}\nq!\n`),
        write('report.awk', '{ s += $2 } END { print "total", s }\n'),
        write('data.txt', 'a 2\nb 3\n'),
      ],
      [
        { command: 'awk -f evil.awk /dev/null', marker: 'm1' },
        { command: 'sed -f evil.sed data.txt', marker: 'm2' },
        { command: "bash -c 'source /dev/stdin' < payload.txt", marker: 'm3' },
        { command: "perl -e 'print `$(cat payload.txt)`'", marker: 'm3' },
        { command: 'sort --compress-program=./g.sh data.txt', marker: 'm4' },
        { command: 'tclsh evil.tcl', marker: 'm5' },
        { command: `tclsh <<< 'exec sh -c {${payload('m5')}}'`, marker: 'm5' },
        { command: 'ex -s data.txt < cmds.ex', marker: 'm6' },
        { command: `vim -es -c '!${payload('m6')}' -c 'q!' data.txt`, marker: 'm6' },
        { command: `emacs --batch --eval '(shell-command "${payload('m7')}")'`, marker: 'm7' },
      ],
      [{ command: 'awk -f report.awk data.txt', expect: /total 5/ }],
    );
  });

  it('a script or config the same line rewrites before it runs (found by the attack pass)', async () => {
    const cwd = project();
    await family(
      cwd,
      [
        write('ok.sh', 'echo ok\n'),
        write('ok.py', 'print("ok")\n'),
        write('payload.txt', `${payload('m1')}\n`),
        write('payload.py', `import os\nos.system("${payload('m2')}")\n`),
        write('evil.cfg', `[core]\n\tfsmonitor = ${payload('m3')}\n`),
        terminal('git init -q'),
      ],
      [
        { command: 'cp payload.txt ok.sh; sh ok.sh', marker: 'm1' },
        { command: `sed -i 's/^echo ok$/${payload('m1')}/' ok.sh; sh ok.sh`, marker: 'm1' },
        { command: 'cp payload.py ok.py && python3 ok.py', marker: 'm2' },
        { command: 'cat payload.txt > ok.sh; bash ok.sh', marker: 'm1' },
        { command: 'cp evil.cfg .git/config; git status', marker: 'm3' },
      ],
      [
        { command: 'chmod +x ok.sh && ./ok.sh', expect: /ok/ },
        { command: 'cp ok.sh backup.sh && sh ok.sh', expect: /ok/ },
      ],
    );
  });

  it('scripts named by globs', async () => {
    const cwd = project();
    await family(
      cwd,
      [write('g1.sh', `${payload('m1')}\n`), write('ok1.sh', 'echo fine\n')],
      [
        { command: 'sh g?.sh', marker: 'm1' },
        { command: 'sh [g]1.sh', marker: 'm1' },
        { command: '. ./g*.sh', marker: 'm1' },
      ],
      [{ command: 'sh ok?.sh', expect: /fine/ }],
    );
  });

  it('git running commands: options, plumbing, and hooks read when git runs them (a harmless hook runs)', async () => {
    const cwd = project();
    const git = 'git -c user.email=t@example.org -c user.name=t';
    // The person set the repository up (a command cannot change .git/config in the sandbox).
    execFileSync(
      'sh',
      ['-c', `git init -q . && ${git} commit -q --allow-empty -m init && git config core.hooksPath .githooks`],
      { cwd },
    );
    await family(
      cwd,
      [write('.githooks/pre-commit', `#!/bin/sh\n${payload('m1')}\n`), terminal('chmod +x .githooks/pre-commit')],
      [
        { command: `${git} commit -q --allow-empty -m x`, marker: 'm1' },
        { command: `git rebase --exec '${payload('m2')}' HEAD`, marker: 'm2' },
        { command: `git bisect run sh -c '${payload('m3')}'`, marker: 'm3' },
        { command: `git submodule foreach '${payload('m4')}'`, marker: 'm4' },
        { command: 'git send-pack --force origin main', marker: 'm5' },
      ],
      [{ command: 'git log --oneline', expect: /init/ }],
    );
    // The same hook made harmless: the commit runs without asking, and the hook runs.
    const { out, asked } = await runDenying(cwd, [
      write('.githooks/pre-commit', `#!/bin/sh\necho hook-ran > ${join(cwd, 'hook-ok')}\n`),
      terminal(`${git} commit -q --allow-empty -m harmless && echo committed`),
    ]);
    expect(asked).toEqual([]);
    expect(out[1]).toMatchObject({ exit_code: 0, output: expect.stringContaining('committed') });
    expect(readFileSync(join(cwd, 'hook-ok'), 'utf8')).toContain('hook-ran');
  });

  it('local code imported or preloaded', async () => {
    const cwd = project();
    const py = (marker: string): string => `import os\nos.system(${JSON.stringify(payload(marker))})\n`;
    const js = (marker: string): string => `require('child_process').execSync(${JSON.stringify(payload(marker))})\n`;
    await family(
      cwd,
      [
        write('main.py', 'import helper\n'),
        write('helper.py', py('m1')),
        write('pkg/__init__.py', ''),
        write('pkg/__main__.py', py('m2')),
        write('conftest.py', py('m3')),
        write('tests/test_a.py', 'def test_a():\n    assert True\n'),
        write('x.js', js('m4')),
        write('app.js', 'console.log("app")\n'),
        write('start.py', py('m5')),
        write('good.py', 'import util\nprint("sum", util.add(2, 3))\n'),
        write('util.py', 'def add(a, b):\n    return a + b\n'),
      ],
      [
        { command: 'python3 main.py', marker: 'm1' },
        { command: 'python3 -m pkg', marker: 'm2' },
        { command: 'python3 -c "import helper"', marker: 'm1' },
        { command: 'python3 -m pytest -q', marker: 'm3' },
        { command: 'node -r ./x.js app.js', marker: 'm4' },
        { command: 'node --import ./x.js app.js', marker: 'm4' },
        { command: `node -e "require('./x')"`, marker: 'm4' },
        { command: "NODE_OPTIONS='--require ./x.js' node app.js", marker: 'm4' },
        { command: 'PYTHONSTARTUP=start.py python3 -i', marker: 'm5', stdin: 'print(1)\n' },
      ],
      [{ command: 'python3 good.py', expect: /sum 5/ }],
    );
  });

  it('execute_code: a computed callee or a computed path that another tool runs asks', async () => {
    const cwd = project();
    const m = (i: number): string => JSON.stringify(join(cwd, `m${i}`));
    const programs: [string, string][] = [
      ['python', `import os\nk = "sys" + "tem"\nvars(os)[k](${JSON.stringify(payload('m1'))})\nopen(${m(1)}, 'w')\n`],
      ['python', `import os\nlist(map(os.system, [${JSON.stringify(payload('m2'))}]))\nopen(${m(2)}, 'w')\n`],
      [
        'python',
        `import os\nname = os.environ.get('HOOK', 'pre-commit')\nopen(os.path.join('.git', 'hooks', name), 'w').write('x')\nopen(${m(3)}, 'w')\n`,
      ],
      [
        'javascript',
        `import cp from 'node:child_process';\nimport fs from 'node:fs';\n[cp.execSync][0](${JSON.stringify(payload('m4'))});\nfs.writeFileSync(${m(4)}, '');\n`,
      ],
      ['python', `import json\nopen('report.json', 'w').write(json.dumps({'ok': True}))\nprint('written')\n`],
    ];
    const { out, asked } = await runDenying(
      cwd,
      programs.map(([language, code]) => call('execute_code', { language, code })),
    );
    expect(asked.map((a) => a.command)).toEqual(programs.slice(0, 4).map(([l, c]) => `${l} program:\n${c}`));
    for (let i = 0; i < 4; i += 1) {
      expect(out[i]).toMatchObject(denied);
      expect(existsSync(join(cwd, `m${i + 1}`))).toBe(false);
    }
    expect(out[4]).toMatchObject({ exit_code: 0, output: expect.stringContaining('written') });
  });
});
