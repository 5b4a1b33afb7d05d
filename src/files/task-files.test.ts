import { spawn } from 'node:child_process';
import {
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { FileRefusal, readTaskFile, updateTaskFile, writeTaskFile } from './task-files.js';
import { TaskView } from '../environments/task-view.js';
import { DEFAULT_PROTECTED } from '../common/protected-paths.js';
import { walkTaskDir } from './walk.js';

const dir = (prefix: string, parent = tmpdir()): string => realpathSync(mkdtempSync(join(parent, prefix)));

async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return (err as Error).message;
  }
  return 'no refusal';
}

describe('task files: links are followed only where they stay inside', () => {
  it('follows relative and absolute links that stay beneath the root, and refuses those that leave', async () => {
    const root = dir('tether-tf-');
    // Not under /tmp: with files.allow_outside_cwd the tools see what commands see, and their /tmp is their own.
    const out = dir('tether-tf-out-', '/var/tmp');
    writeFileSync(join(out, 'secret'), 'S');
    mkdirSync(join(root, 'src/deep'), { recursive: true });
    writeFileSync(join(root, 'src/deep/a.txt'), 'A');
    symlinkSync('deep/a.txt', join(root, 'src/rel'));
    symlinkSync(join(root, 'src/deep'), join(root, 'abs'));
    symlinkSync('../../src/deep/a.txt', join(root, 'src/deep/up'));
    symlinkSync(out, join(root, 'away'));
    symlinkSync('../' + out.split('/').pop()! + '/secret', join(root, 'sideways'));
    symlinkSync('/proc/self/environ', join(root, 'environ'));
    symlinkSync('loop2', join(root, 'loop1'));
    symlinkSync('loop1', join(root, 'loop2'));
    const scope = { cwd: root };
    expect((await readTaskFile(scope, 'src/rel', 100)).toString()).toBe('A');
    expect((await readTaskFile(scope, 'abs/a.txt', 100)).toString()).toBe('A');
    expect((await readTaskFile(scope, 'src/deep/up', 100)).toString()).toBe('A');
    expect((await readTaskFile(scope, join(root, 'src/deep/a.txt'), 100)).toString()).toBe('A');
    expect((await readTaskFile(scope, 'src/deep/../deep/a.txt', 100)).toString()).toBe('A');
    expect(await refusal(readTaskFile(scope, 'away/secret', 100))).toMatch(/leads \(through a link to .*\) outside/);
    expect(await refusal(readTaskFile(scope, 'sideways', 100))).toMatch(/leads outside the working directory/);
    expect(await refusal(readTaskFile(scope, 'environ', 100))).toMatch(/link to \/proc\/self\/environ\) outside/);
    expect(await refusal(readTaskFile(scope, '../x', 100))).toMatch(/leads outside/);
    expect(await refusal(readTaskFile(scope, 'src/../../x', 100))).toMatch(/leads outside/);
    expect(await refusal(readTaskFile(scope, '/etc/passwd', 100))).toMatch(/is outside the working directory/);
    expect(await refusal(readTaskFile(scope, 'loop1', 100))).toMatch(/too many levels of symbolic links/);
    // Writes: through a dangling link out, into a linked directory out, and a new file in a linked directory in.
    symlinkSync(join(out, 'new.txt'), join(root, 'dangling'));
    expect(await refusal(writeTaskFile(scope, 'dangling', 'x'))).toMatch(/outside/);
    expect(await refusal(writeTaskFile(scope, 'away/new.txt', 'x'))).toMatch(/outside/);
    expect(await refusal(writeTaskFile(scope, 'away/deeper/new.txt', 'x'))).toMatch(/outside/);
    expect(existsSync(join(out, 'new.txt')) || existsSync(join(out, 'deeper'))).toBe(false);
    await writeTaskFile(scope, 'abs/b/c.txt', 'C');
    expect(readFileSync(join(root, 'src/deep/b/c.txt'), 'utf8')).toBe('C');
    // Beneath `/` (files.allow_outside_cwd) everything is reachable, as configured.
    expect((await readTaskFile({ cwd: root, allowOutsideCwd: true }, 'away/secret', 100)).toString()).toBe('S');
    const machineTmp = dir('tether-tf-tmp-');
    writeFileSync(join(machineTmp, 'x'), 'T');
    expect(await refusal(readTaskFile({ cwd: root, allowOutsideCwd: true }, join(machineTmp, 'x'), 100))).toMatch(
      /is not the task's: its commands have a \/tmp of their own/,
    );
  });

  it('refuses hard-linked files, FIFOs and directories for writing, without blocking on a FIFO', async () => {
    const root = dir('tether-tf-');
    const out = dir('tether-tf-out-');
    writeFileSync(join(out, 'victim'), 'V');
    linkSync(join(out, 'victim'), join(root, 'hard'));
    execFileSync('mkfifo', [join(root, 'fifo')]);
    mkdirSync(join(root, 'd'));
    const scope = { cwd: root };
    expect(await refusal(writeTaskFile(scope, 'hard', 'x'))).toMatch(/has 2 hard links; tether does not write/);
    expect(await refusal(updateTaskFile(scope, 'hard', 100, () => 'x'))).toMatch(/hard links/);
    expect(readFileSync(join(out, 'victim'), 'utf8')).toBe('V');
    expect(await refusal(readTaskFile(scope, 'fifo', 100))).toBe('fifo is not a regular file');
    expect(await refusal(writeTaskFile(scope, 'fifo', 'x'))).toMatch(/not a regular file/);
    expect(await refusal(writeTaskFile(scope, 'd', 'x'))).toMatch(/is a directory/);
    expect(await refusal(readTaskFile(scope, 'd', 100))).toBe('d is a directory');
    expect(await refusal(readTaskFile(scope, 'nope/x', 100))).toBe('File not found: nope/x');
    const e = await readTaskFile(scope, 'hard', 100).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(Buffer); // reading a hard-linked file of the task is fine
  });

  it('walks files and directories without entering links', async () => {
    const root = dir('tether-tf-');
    const out = dir('tether-tf-out-');
    writeFileSync(join(out, 'secret.txt'), 'S');
    mkdirSync(join(root, 'b/c'), { recursive: true });
    writeFileSync(join(root, 'a.txt'), 'a');
    writeFileSync(join(root, 'b/c/d.txt'), 'd');
    symlinkSync(out, join(root, 'b/out'));
    symlinkSync(join(out, 'secret.txt'), join(root, 'b/s.txt'));
    const seen: string[] = [];
    for await (const f of walkTaskDir({ cwd: root }, '.', new Set()))
      seen.push(`${f.rel}=${(await f.read(10))?.toString()}`);
    expect(seen).toEqual(['a.txt=a', 'b/c/d.txt=d']);
  });
});

/**
 * A process that swaps `name` between a file inside and a link to `target` as fast as it can (rename is atomic, so
 * every lookup sees one or the other).
 */
function flipper(root: string, name: string, target: string): { stop: () => Promise<void> } {
  const script = `
    cd "$1"; i=0
    while :; do
      ln -sfn "$2" .l$$ && mv -Tf .l$$ "$3"
      printf inside > .f$$ && mv -Tf .f$$ "$3"
    done`;
  const child = spawn('sh', ['-c', script, 'flip', root, target, name], { stdio: 'ignore' });
  return {
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}

describe('task files under a symlink race (a process flipping a name between a file and a link out)', () => {
  const TRIES = 3000;

  it(`never reads, writes or patches outside in ${TRIES} tries of each`, async () => {
    const root = dir('tether-race-');
    const out = dir('tether-race-out-');
    writeFileSync(join(out, 'config.yaml'), 'command_allowlist: []\n');
    const scope = { cwd: root };
    const flips = [
      flipper(root, 'r', join(out, 'config.yaml')),
      flipper(root, 'w', join(out, 'config.yaml')),
      flipper(root, 'e', '/proc/self/environ'),
      flipper(root, 'd', out),
    ];
    let reads = 0;
    try {
      for (let i = 0; i < TRIES; i += 1) {
        const data = await readTaskFile(scope, 'r', 1000).catch((e: unknown) => e);
        if (Buffer.isBuffer(data)) {
          reads += 1;
          expect(data.toString()).toBe('inside');
        } else expect(data).toBeInstanceOf(Error);
        const env = await readTaskFile(scope, 'e', 100000).catch((e: unknown) => e);
        if (Buffer.isBuffer(env)) expect(env.toString()).toBe('inside');
        await writeTaskFile(scope, 'w', "command_allowlist: ['*']\n").catch(() => undefined);
        await updateTaskFile(scope, 'w', 1000, () => "command_allowlist: ['*']\n").catch(() => undefined);
        await writeTaskFile(scope, 'd/planted.txt', 'x').catch(() => undefined);
      }
    } finally {
      await Promise.all(flips.map((f) => f.stop()));
    }
    expect(readFileSync(join(out, 'config.yaml'), 'utf8')).toBe('command_allowlist: []\n');
    expect(existsSync(join(out, 'planted.txt'))).toBe(false);
    // The race was real: some reads found the file inside, and the flip was seen as a link other times.
    expect(reads).toBeGreaterThan(0);
    expect(reads).toBeLessThan(TRIES);
  }, 240_000);
});

describe('task files: a protected file is changed only by its own path (the one the gate showed a person)', () => {
  it('refuses a write that reaches one through a link; reads it, writes it by its path, and writes ordinary files', async () => {
    const root = dir('tether-tf-prot-');
    mkdirSync(join(root, '.github/workflows'), { recursive: true });
    writeFileSync(join(root, '.github/workflows/ci.yml'), 'on: push\n');
    writeFileSync(join(root, 'AGENTS.md'), 'rules\n');
    mkdirSync(join(root, 'src'));
    mkdirSync(join(root, 'vendor/lib/.claude'), { recursive: true });
    mkdirSync(join(root, 'vendor/lib/.git'));
    symlinkSync('.github', join(root, 'docs'));
    symlinkSync('AGENTS.md', join(root, 'notes.md'));
    symlinkSync('AGENTS.md', join(root, 'CLAUDE.md'));
    symlinkSync('vendor/lib/.claude', join(root, 'settings'));
    symlinkSync('src', join(root, 'lib'));
    const scope = { cwd: root, view: new TaskView([], [], false, [], DEFAULT_PROTECTED) };
    const refused =
      /leads to .*, which is protected \(.*\): a file tool changes a protected file only by its own path, so that a person sees the change and is asked; write .* itself/;
    expect(await refusal(writeTaskFile(scope, 'docs/workflows/ci.yml', 'x'))).toMatch(refused);
    expect(await refusal(writeTaskFile(scope, 'docs/workflows/new.yml', 'x'))).toMatch(refused);
    expect(await refusal(writeTaskFile(scope, 'notes.md', 'x'))).toMatch(
      /^notes\.md leads to .*\/AGENTS\.md, which is protected \(other agents read it as their instructions or settings\).*; write AGENTS\.md itself$/,
    );
    expect(await refusal(updateTaskFile(scope, 'notes.md', 100, () => 'x'))).toMatch(refused);
    // A nested repository's own agent settings, reached from the task directory through a link.
    expect(await refusal(writeTaskFile(scope, 'settings/settings.json', '{}'))).toMatch(refused);
    expect(readFileSync(join(root, '.github/workflows/ci.yml'), 'utf8')).toBe('on: push\n');
    expect(existsSync(join(root, '.github/workflows/new.yml'))).toBe(false);
    expect(existsSync(join(root, 'vendor/lib/.claude/settings.json'))).toBe(false);
    expect(readFileSync(join(root, 'AGENTS.md'), 'utf8')).toBe('rules\n');
    // Reading is fine, through a link or not.
    expect((await readTaskFile(scope, 'notes.md', 100)).toString()).toBe('rules\n');
    expect((await readTaskFile(scope, 'docs/workflows/ci.yml', 100)).toString()).toBe('on: push\n');
    // By a protected path of its own the gate asked (protected-change.ts): the write goes through.
    await writeTaskFile(scope, 'CLAUDE.md', 'rules, approved\n');
    await writeTaskFile(scope, '.github/workflows/ci.yml', 'on: pull_request\n');
    await writeTaskFile(scope, 'vendor/lib/.claude/settings.json', '{}');
    expect(readFileSync(join(root, 'AGENTS.md'), 'utf8')).toBe('rules, approved\n');
    expect(readFileSync(join(root, '.github/workflows/ci.yml'), 'utf8')).toBe('on: pull_request\n');
    // Ordinary files, through a link or not.
    await writeTaskFile(scope, 'lib/util.py', 'x = 1\n');
    await writeTaskFile(scope, 'src/app.py', 'y = 2\n');
    expect(readFileSync(join(root, 'src/util.py'), 'utf8')).toBe('x = 1\n');
    // With no protected paths in force, nothing is held.
    await writeTaskFile({ cwd: root, view: new TaskView([]) }, 'notes.md', 'anything\n');
    expect(readFileSync(join(root, 'AGENTS.md'), 'utf8')).toBe('anything\n');
  });
});

describe('FileRefusal', () => {
  it('is an Error with the message for the model', () => {
    expect(new FileRefusal('x is a directory').message).toBe('x is a directory');
  });
});
