// The protected paths' table and setting: what is covered (every spelling of a name), and how a setting adds and
// removes entries, a wrong one named.
import { describe, expect, it } from 'vitest';
import { applyProtected, DEFAULT_PROTECTED, protectedEntryOf, resolveProtected } from './protected-paths.js';

const covered = (rel: string, entries = DEFAULT_PROTECTED): string | undefined => protectedEntryOf(rel, entries)?.path;

describe('protected paths', () => {
  it.each([
    ['.github/workflows/ci.yml', '.github/workflows'],
    ['.github/workflows', '.github/workflows'],
    ['.github/actions/setup/action.yml', '.github/actions'],
    ['AGENTS.md', 'AGENTS.md'],
    ['Agents.md', 'AGENTS.md'],
    ['.GitHub/Workflows/x.yml', '.github/workflows'],
    ['.claude/settings.json', '.claude'],
    ['.vscode/tasks.json', '.vscode/tasks.json'],
    ['.github/CODEOWNERS', '.github/CODEOWNERS'],
    ['docs/CODEOWNERS', 'docs/CODEOWNERS'],
    ['./.envrc', '.envrc'],
    ['.tether/plugins/p.js', '.tether'],
    ['.clinerules/rule.md', '.clinerules'],
  ])('%s is covered by %s', (rel, entry) => {
    expect(covered(rel)).toBe(entry);
  });

  it.each([
    'src/app.py',
    'src/AGENTS.md',
    '.github/dependabot.yml',
    '.vscode/launch.json',
    'docs/index.md',
    'AGENTS.md.bak',
    '.envrc.example',
    '.githubx/workflows/x',
  ])('%s is not', (rel) => {
    expect(covered(rel)).toBeUndefined();
  });

  it('a setting adds (PATH) and removes (!PATH) entries, whatever their case, in order', () => {
    const entries = resolveProtected(['deploy/prod.yml', '!.VSCode/settings.json', 'Makefile/']);
    expect(covered('deploy/prod.yml', entries)).toBe('deploy/prod.yml');
    expect(protectedEntryOf('deploy/prod.yml', entries)?.kind).toBe('configured');
    expect(covered('Makefile', entries)).toBe('Makefile');
    expect(covered('.vscode/settings.json', entries)).toBeUndefined();
    expect(covered('.vscode/tasks.json', entries)).toBe('.vscode/tasks.json');
    expect(resolveProtected(['x', '!x']).some((e) => e.path === 'x')).toBe(false);
  });

  it('names each wrong item by its index', () => {
    expect(applyProtected(['ok.yml', '/etc/passwd', '!nothing.here', '../up', 'a/./b', '']).problems).toEqual([
      { index: 1, message: expect.stringMatching(/^'\/etc\/passwd': give a path relative to the project/) },
      { index: 2, message: expect.stringMatching(/^'!nothing\.here' removes nothing: nothing\.here is not among/) },
      { index: 3, message: expect.stringMatching(/^'\.\.\/up': give a path relative/) },
      { index: 4, message: expect.stringMatching(/^'a\/\.\/b': give a path relative/) },
      { index: 5, message: expect.stringMatching(/^'': give a path relative/) },
    ]);
    expect(() => resolveProtected(['!nothing.here'])).toThrow(/removes nothing/);
  });
});
