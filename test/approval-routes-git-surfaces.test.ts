// The attacks on git's executable surfaces through the real worker in manual mode (dev server, registry, local
// environment): a commondir planted after `cd .git` (in the line, and left by an earlier call), a nested repository's
// config written from inside it, a bare repository's config. Each write waits for approval (denied here); afterwards
// the person's own git, run outside the sandbox, runs nothing planted.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Harness } from './support/agent-harness.js';
import { call, routeSuite, runDenying } from './support/deny-all.js';
import { type Step } from './support/scripted-model.js';

let h: Harness;
const { project } = routeSuite('git-surfaces', (made) => (h = made));

const terminal = (command: string): Step => call('terminal', { command });
const write = (path: string, content: string): Step => call('write_file', { path, content });
const fsmonitor = (marker: string): string => `[core]\n\tbare = false\n\tfsmonitor = "touch ${marker}; false"\n`;

/** The person's own `git ARGS` in `dir`, outside the sandbox, with no system or user configuration of theirs. */
function personsGit(dir: string, args: string[]): void {
  const home = mkdtempSync(join(tmpdir(), 'tether-git-surfaces-home-'));
  try {
    execFileSync('git', args, {
      cwd: dir,
      stdio: 'ignore',
      env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: home },
    });
  } catch {
    // not a repository, or an unknown command: what matters is what it ran
  }
}

describe("git's executable surfaces, through the worker in manual mode", () => {
  it('asks for commondir, a nested repository config and a bare repository config; the person’s git runs nothing planted', async () => {
    const cwd = project();
    const marker = join(cwd, 'FSMON');
    const aliasMarker = join(cwd, 'ALIAS');
    // Attack 1's preparation, already on disk: a second common directory inside .git with an fsmonitor.
    execFileSync('git', ['init', '-q', cwd]);
    mkdirSync(join(cwd, '.git', 'c'));
    for (const d of ['objects', 'refs']) cpSync(join(cwd, '.git', d), join(cwd, '.git', 'c', d), { recursive: true });
    writeFileSync(join(cwd, '.git', 'c', 'config'), fsmonitor(marker));
    // Git configuration with a command asks wherever it is written (git-config-content.test.ts): on disk already.
    writeFileSync(join(cwd, 'cfg.txt'), fsmonitor(marker));
    const asking = [
      'cd .git && echo c > commondir',
      'echo c > commondir',
      `cd ${cwd}/a/b/.git && cat ../../../cfg.txt > config`,
      'cat ../../../cfg.txt > config',
      'write_file evil.git/config:',
    ];
    const steps = [
      terminal(asking[0]!),
      terminal('cd .git'),
      terminal(asking[1]!),
      terminal(`cd ${cwd} && mkdir -p a/b && cd a/b && git init -q`),
      write('cfg.txt', fsmonitor(marker)),
      terminal(asking[2]!),
      terminal(`cd ${cwd}/a/b/.git`),
      terminal(asking[3]!),
      terminal(`cd ${cwd} && git init -q --bare evil.git`),
      write('evil.git/config', `[alias]\n\tst = "!touch ${aliasMarker}"\n`),
      terminal('cd evil.git && git st'),
    ];
    const { asked, out } = await runDenying(h, cwd, steps, { idPrefix: 'git-surfaces' });
    const askedFirstLines = asked.map((a) => a.command.split('\n')[0]);
    expect(askedFirstLines).toEqual([...asking.slice(0, 2), 'write_file cfg.txt:', ...asking.slice(2)]);
    for (const i of [0, 2, 4, 5, 7, 9]) expect(out[i], JSON.stringify(steps[i])).toMatchObject({ denied: true });
    for (const i of [1, 3, 6, 8]) expect(out[i], JSON.stringify(steps[i])).toMatchObject({ exit_code: 0 });
    expect(existsSync(join(cwd, '.git', 'commondir'))).toBe(false);
    for (const dir of [cwd, join(cwd, 'a', 'b'), join(cwd, 'a', 'b', '.git'), join(cwd, 'evil.git')])
      personsGit(dir, ['status']);
    personsGit(join(cwd, 'evil.git'), ['st']);
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(aliasMarker)).toBe(false);
  });
});
