import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { addToAllowlistFile } from './allowlist-file.js';

const dir = (): string => mkdtempSync(join(tmpdir(), 'tether-allowlist-'));

describe('addToAllowlistFile', () => {
  it('adds entries and keeps comments and other settings', async () => {
    const path = join(dir(), 'config.yaml');
    writeFileSync(
      path,
      '# my settings\nfiles:\n  allow_outside_cwd: true # yes\ncommand_allowlist:\n  - git-reset-hard\n',
    );
    expect(await addToAllowlistFile(path, ['git-force-push', 'git-reset-hard'])).toEqual(['git-force-push']);
    const text = readFileSync(path, 'utf8');
    expect(text).toContain('# my settings');
    expect(text).toContain('allow_outside_cwd: true # yes');
    expect(parse(text)).toEqual({
      files: { allow_outside_cwd: true },
      command_allowlist: ['git-reset-hard', 'git-force-push'],
    });
    await addToAllowlistFile(path, [{ command: 'make deploy', cwd: '/srv/app' }]);
    await addToAllowlistFile(path, [{ command: 'make deploy', cwd: '/srv/app' }]);
    const after = readFileSync(path, 'utf8');
    expect(after).toContain('- { command: make deploy, cwd: /srv/app }');
    expect(parse(after).command_allowlist).toEqual([
      'git-reset-hard',
      'git-force-push',
      { command: 'make deploy', cwd: '/srv/app' },
    ]);
  });

  it('creates the file, and serialises concurrent writers', async () => {
    const path = join(dir(), 'sub', 'config.yaml');
    await Promise.all(['a', 'b', 'c', 'd'].map((e) => addToAllowlistFile(path, [e])));
    expect((parse(readFileSync(path, 'utf8')) as { command_allowlist: string[] }).command_allowlist.sort()).toEqual([
      'a',
      'b',
      'c',
      'd',
    ]);
  });

  it('refuses to touch a file that is not valid YAML or whose list is not a list', async () => {
    const bad = join(dir(), 'config.yaml');
    writeFileSync(bad, 'files: [\n');
    await expect(addToAllowlistFile(bad, ['x'])).rejects.toThrow(/not valid YAML/);
    expect(readFileSync(bad, 'utf8')).toBe('files: [\n');
    const notList = join(dir(), 'config.yaml');
    writeFileSync(notList, 'command_allowlist: yes\n');
    await expect(addToAllowlistFile(notList, ['x'])).rejects.toThrow(/not a list/);
  });
});
