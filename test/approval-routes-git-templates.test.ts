// The attacks on git through templates and planted configuration, through the real worker in manual mode (dev server,
// registry, local environment): a template's commondir copied into the existing .git, a template's config copied into
// a new repository (--template, -c init.templateDir, clone --template), a bare repository built piece by piece. Each
// step that would plant code waits for approval (denied here); afterwards the person's own git runs nothing planted.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Harness } from './support/agent-harness.js';
import { call, routeSuite, runDenying } from './support/deny-all.js';
import { type Step } from './support/scripted-model.js';

let h: Harness;
const { project } = routeSuite('git-templates', (made) => (h = made));

const terminal = (command: string): Step => call('terminal', { command });
const write = (path: string, content: string): Step => call('write_file', { path, content });
const fsmonitor = (marker: string): string => `[core]\n\tfsmonitor = "touch ${marker}; false"\n`;

/** The person's own `git ARGS` in `dir`, outside the sandbox, with no system or user configuration of theirs. */
function personsGit(dir: string, args: string[]): void {
  const home = mkdtempSync(join(tmpdir(), 'tether-git-templates-home-'));
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

function plant(cwd: string, files: Record<string, string>): void {
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(dirname(join(cwd, p)), { recursive: true });
    writeFileSync(join(cwd, p), text);
  }
}

describe('git templates and planted configuration, through the worker in manual mode', () => {
  it('asks for each planting write and each templated init/clone; the person’s git runs nothing planted', async () => {
    const cwd = project();
    const m = (n: string): string => join(cwd, n);
    execFileSync('git', ['init', '-q', cwd]);
    execFileSync('git', ['init', '-q', m('src11')]);
    // What the model would have had to write already on disk, so that a templated init/clone let through would plant.
    plant(cwd, {
      'cz/config': fsmonitor(m('m510')),
      'cz/objects/info/k': '',
      'cz/refs/heads/k': '',
      'tplc/commondir': '../cz',
      'tpl2/config': fsmonitor(m('m2')),
      'tpl4/config': fsmonitor(m('m4')),
      'tpl11/config': fsmonitor(m('m11')),
      'b9/config': `[alias]\n\tst = "!touch ${m('m909')}"\n`,
      'b9/objects/info/k': '',
      'b9/refs/heads/k': '',
    });
    const asking = [
      'write_file cz2/config:',
      'write_file tplc2/commondir:',
      'git init -q --template=tplc',
      'write_file tpl3/config:',
      'git init -q --template=tpl2 g2',
      `git -c init.templateDir=${cwd}/tpl4 init -q g4`,
      'git clone -q --template=tpl11 src11 g11',
      'write_file b8/config:',
      'write_file b9/HEAD:',
    ];
    const steps = [
      write('cz2/config', fsmonitor(m('m510'))),
      write('cz2/objects/info/k', ''),
      write('tplc2/commondir', '../cz'),
      terminal(asking[2]!),
      write('tpl3/config', fsmonitor(m('m3'))),
      terminal(asking[4]!),
      terminal(asking[5]!),
      terminal(asking[6]!),
      write('b8/config', `[alias]\n\tst = "!touch ${m('m808')}"\n`),
      write('b8/HEAD', 'ref: refs/heads/main\n'),
      write('b9/HEAD', 'ref: refs/heads/main\n'),
      write('ok/config', '[user]\n\tname = A\n[core]\n\tautocrlf = input\n'),
    ];
    const { asked, out } = await runDenying(h, cwd, steps, { idPrefix: 'git-templates' });
    expect(asked.map((a) => a.command.split('\n')[0])).toEqual(asking);
    for (const i of [0, 2, 3, 4, 5, 6, 7, 8, 10])
      expect(out[i], JSON.stringify(steps[i])).toMatchObject({ denied: true });
    for (const i of [1, 9, 11]) expect(out[i], JSON.stringify(steps[i])).not.toHaveProperty('denied');
    expect(existsSync(join(cwd, '.git', 'commondir'))).toBe(false);
    for (const dir of ['.', 'g2', 'g4', 'g11']) if (existsSync(m(dir))) personsGit(m(dir), ['status']);
    for (const dir of ['b8', 'b9']) personsGit(m(dir), ['st']);
    for (const marker of ['m510', 'm2', 'm3', 'm4', 'm11', 'm808', 'm909'])
      expect(existsSync(m(marker)), marker).toBe(false);
  });
});
