// Every channel that can run code passes the approval gate (issue 16), in real runs on the dev server with a real
// worker in manual mode: computed commands, stdin to a shell or interpreter, input to a background shell, scripts
// run by path, execute_code programs. Each route either waits for approval (denied here, and its marker file is
// never made) or is refused as hardline. Hardline payloads are `kill -0 -1` (signal 0 only tests; harmless if it ran).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Harness } from './support/agent-harness.js';
import {
  call,
  denied,
  routeSuite,
  runDenying as denyAll,
  toolResults,
  processCall as proc,
} from './support/deny-all.js';
import { type Step } from './support/scripted-model.js';

let h: Harness;
const { project } = routeSuite('channels', (made) => (h = made));

const results = toolResults;
const runDenying = (cwd: string, steps: Step[], record?: string): ReturnType<typeof denyAll> =>
  denyAll(h, cwd, steps, { idPrefix: 'channels', record });

const hardline = { hardline: true, error: expect.stringMatching(/never run.*\[kill-all\]/) };

describe('computed commands ask (manual mode)', () => {
  it('variables in command position, IFS, sh -c/eval of a substitution, git -c, make -f <(...), crontab, interpreter pieces', async () => {
    const cwd = project();
    const m = (i: number): string => join(cwd, `m${i}`);
    const commands = [
      `X="touch ${m(1)}"; $X`,
      `IFS=,; X="touch,${m(2)}"; $X`,
      `sh -c "$(echo touch ${m(3)})"`,
      `sh -c "$(printf 'touch ${m(4)}')"`,
      `eval "$(echo ${Buffer.from(`touch ${m(5)}`).toString('base64')} | base64 -d)"`,
      `git -c core.pager='kubectl delete pod demo' log; touch ${m(6)}`,
      `make -f <(printf 'all:\\n\\ttouch ${m(7)}\\n')`,
      `echo '* * * * * kubectl delete pod demo' | crontab - ; touch ${m(8)}`,
      `python3 -c "import os; os.system('kubectl dele' + 'te pod demo; touch ${m(9)}')"`,
      `echo ${[...`touch ${m(10)}`].reverse().join('')} | rev | sh`,
    ];
    const { model, asked } = await runDenying(cwd, [
      ...commands.map((command) => call('terminal', { command })),
      call('terminal', { command: `X="kill -0 -1"; $X; touch ${m(11)}` }),
    ]);
    // Files the gate read to judge a command follow it (`# ~/.gitconfig:` for git): the command is the first part.
    expect(asked.map((a) => a.command.split('\n# ')[0])).toEqual(commands);
    expect(asked.slice(0, 5).every((a) => a.findings.some((f) => f.rule === 'dynamic-command'))).toBe(true);
    const out = results(model);
    for (let i = 0; i < commands.length; i += 1) expect(out[i]).toMatchObject(denied);
    expect(out[commands.length]).toMatchObject(hardline);
    for (let i = 1; i <= 11; i += 1) expect(existsSync(m(i)), `marker m${i}`).toBe(false);
  });
});

describe('stdin and scripts run by path (manual mode)', () => {
  it('judges stdin as the program it feeds and a script by its content; benign ones run', async () => {
    const cwd = project();
    const m = (i: number): string => join(cwd, `m${i}`);
    const asking = (i: number): string => `kubectl delete pod demo 2>/dev/null; touch ${m(i)}\n`;
    const steps: Step[] = [
      call('terminal', { command: 'sh', stdin: asking(1) }),
      call('terminal', {
        command: 'python3',
        stdin: `import os\nos.system('kubectl delete pod demo; touch ${m(2)}')\n`,
      }),
      call('terminal', { command: 'bash -s', stdin: `kill -0 -1; touch ${m(3)}\n` }),
      call('write_file', { path: 'x.sh', content: asking(4) }),
      call('terminal', { command: 'sh x.sh' }),
      call('terminal', { command: 'bash ./x.sh' }),
      call('terminal', { command: '. ./x.sh' }),
      call('terminal', { command: 'chmod +x x.sh && ./x.sh' }),
      call('write_file', {
        path: 'k.py',
        content: `import os, signal\nos.kill(-1, 0)\nopen(${JSON.stringify(m(5))}, 'w')\n`,
      }),
      call('terminal', { command: 'python3 k.py' }),
      call('write_file', { path: 'ok.sh', content: `echo fine > ${join(cwd, 'ok.txt')}\n` }),
      call('terminal', { command: 'sh ok.sh' }),
      call('terminal', { command: 'sh', stdin: 'echo from-stdin\n' }),
    ];
    const { model, asked } = await runDenying(cwd, steps, 'approval-channels');
    expect(asked.map((a) => a.command)).toEqual([
      `sh\n# standard input:\n${asking(1)}`,
      expect.stringContaining('python3\n# standard input:\nimport os'),
      `sh x.sh\n# x.sh:\n${asking(4)}`,
      `bash ./x.sh\n# ./x.sh:\n${asking(4)}`,
      `. ./x.sh\n# ./x.sh:\n${asking(4)}`,
      `chmod +x x.sh && ./x.sh\n# ./x.sh:\n${asking(4)}`,
    ]);
    const out = results(model);
    expect(out[0]).toMatchObject(denied);
    expect(out[1]).toMatchObject(denied);
    expect(out[2]).toMatchObject(hardline);
    for (const i of [4, 5, 6, 7]) expect(out[i]).toMatchObject(denied);
    expect(out[9]).toMatchObject(hardline);
    expect(out[11]).toMatchObject({ exit_code: 0 });
    expect(out[12]).toMatchObject({ exit_code: 0, output: expect.stringContaining('from-stdin') });
    expect(existsSync(join(cwd, 'ok.txt'))).toBe(true);
    for (let i = 1; i <= 5; i += 1) expect(existsSync(m(i)), `marker m${i}`).toBe(false);
  });
});

describe('input to a background shell (manual mode)', () => {
  it('judges each submitted or written line as a command of that shell, partial lines joined', async () => {
    const cwd = project();
    const marker = join(cwd, 'm1');
    const steps: Step[] = [
      call('terminal', { command: 'bash', background: true }),
      proc('submit', { data: `kubectl delete pod demo 2>/dev/null; touch ${marker}` }),
      proc('submit', { data: 'kill -0 -1' }),
      proc('write', { data: 'kill -0 ' }),
      proc('write', { data: '-1\n' }),
      proc('submit', { data: `echo ok > ${join(cwd, 'ok.txt')}; exit` }),
      proc('wait', { timeout: 30 }),
    ];
    const { model, asked } = await runDenying(cwd, steps);
    expect(asked).toHaveLength(1);
    expect(asked[0]!.tool).toBe('process');
    expect(asked[0]!.command).toMatch(/^process \S+ \(bash\) submit: kubectl delete pod demo/);
    const out = results(model);
    expect(out[1]).toMatchObject(denied);
    expect(out[2]).toMatchObject(hardline);
    expect(out[3]).toMatchObject({ status: 'running' }); // "kill -0 " alone is not a command yet
    expect(out[4]).toMatchObject(hardline);
    // The refused "-1" never reached bash, so its line still began "kill -0 ": that line failed, the shell went on.
    expect(out[6]).toMatchObject({ status: 'exited' });
    expect(existsSync(join(cwd, 'ok.txt'))).toBe(true);
    expect(existsSync(marker)).toBe(false);
  });
});

describe('execute_code programs (manual mode)', () => {
  it('judges every call that spawns or signals; a computed command asks; a benign program runs', async () => {
    const cwd = project();
    const m = (i: number): string => JSON.stringify(join(cwd, `m${i}`));
    const programs: [string, string][] = [
      ['python', `import subprocess\nsubprocess.run(['kubectl', 'delete', 'pod', 'demo'])\nopen(${m(1)}, 'w')\n`],
      ['python', `import os, sys\nos.system(sys.argv[0])\nopen(${m(2)}, 'w')\n`],
      ['python', `import os\nos.kill(-1, 0)\nopen(${m(3)}, 'w')\n`],
      [
        'javascript',
        `import { execSync } from 'node:child_process';\nimport fs from 'node:fs';\nexecSync(process.env.CMD ?? 'true');\nfs.writeFileSync(${m(4)}, '');\n`,
      ],
      ['javascript', `import fs from 'node:fs';\nprocess.kill(-1, 0);\nfs.writeFileSync(${m(5)}, '');\n`],
      [
        'python',
        `import subprocess\nprint(subprocess.run(['echo', 'benign'], capture_output=True, text=True).stdout)\n`,
      ],
    ];
    const { model, asked } = await runDenying(
      cwd,
      programs.map(([language, code]) => call('execute_code', { language, code })),
    );
    expect(asked.map((a) => a.command)).toEqual([
      `python program:\n${programs[0]![1]}`,
      `python program:\n${programs[1]![1]}`,
      `javascript program:\n${programs[3]![1]}`,
    ]);
    expect(asked[1]!.findings.map((f) => f.rule)).toEqual(['dynamic-command']);
    const out = results(model);
    expect(out[0]).toMatchObject(denied);
    expect(out[1]).toMatchObject(denied);
    expect(out[2]).toMatchObject(hardline);
    expect(out[3]).toMatchObject(denied);
    expect(out[4]).toMatchObject(hardline);
    expect(out[5]).toMatchObject({ exit_code: 0, output: expect.stringContaining('benign') });
    for (let i = 1; i <= 5; i += 1) expect(existsSync(join(cwd, `m${i}`)), `marker m${i}`).toBe(false);
  });
});

describe('attack probes: code left by one call for a later one (manual mode)', () => {
  it('a git hook written by write_file, package.json scripts, a Makefile, an exported PAGER and git config ask; a plain Makefile runs', async () => {
    const cwd = project();
    const m = (i: number): string => join(cwd, `m${i}`);
    const steps: Step[] = [
      call('terminal', { command: 'git init -q .' }),
      call('write_file', { path: '.git/hooks/pre-commit', content: `#!/bin/sh\ntouch ${m(1)}\n` }),
      call('write_file', {
        path: 'package.json',
        content: JSON.stringify({ scripts: { test: `touch ${m(2)}; kill -0 -1` } }),
      }),
      call('terminal', { command: 'npm test' }),
      call('write_file', { path: 'Makefile', content: `all:\n\ttouch ${m(3)}; kill -0 -1\n` }),
      call('terminal', { command: 'make' }),
      call('terminal', { command: `export PAGER='touch ${m(4)}; kill -0 -1'` }),
      call('terminal', { command: `git config core.pager 'touch ${m(5)}; kill -0 -1'` }),
      call('write_file', { path: 'Makefile', content: `all:\n\techo fine > ${join(cwd, 'ok.txt')}\n` }),
      call('terminal', { command: 'make' }),
    ];
    const { model, asked } = await runDenying(cwd, steps);
    expect(asked.map((a) => a.command)).toEqual([`write_file .git/hooks/pre-commit:\n#!/bin/sh\ntouch ${m(1)}\n`]);
    const out = results(model);
    expect(out[0]).toMatchObject({ exit_code: 0 });
    expect(out[1]).toMatchObject(denied);
    for (const i of [3, 5, 6, 7]) expect(out[i], `step ${i}`).toMatchObject(hardline);
    expect(out[9]).toMatchObject({ exit_code: 0 });
    expect(existsSync(join(cwd, '.git/hooks/pre-commit'))).toBe(false);
    expect(existsSync(join(cwd, 'ok.txt'))).toBe(true);
    for (let i = 1; i <= 5; i += 1) expect(existsSync(m(i)), `marker m${i}`).toBe(false);
  });
});
