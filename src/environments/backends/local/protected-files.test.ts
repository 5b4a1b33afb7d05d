// Finding protected paths at each project top, and the bwrap arguments that hold them: every spelling of a name,
// links recorded and never followed, a directory's listing reused only while it is unchanged, the directories above
// pinned, and nothing shown that a hidden path covers.
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveProtected } from '../../../common/protected-paths.js';
import { findProtected, pinArgs, protectedView, readOnlyArgs } from './protected-files.js';

const entries = resolveProtected([]);

function tree(files: Record<string, string>): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'tether-protected-files-')));
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(join(root, p, '..'), { recursive: true });
    writeFileSync(join(root, p), text);
  }
  return root;
}

describe('finding protected paths', () => {
  it('finds each at each top, in any spelling, and links as links', () => {
    const root = tree({
      '.github/workflows/ci.yml': '',
      '.github/dependabot.yml': '',
      'Agents.md': '',
      'src/AGENTS.md': '',
      'sub/.vscode/tasks.json': '',
      'sub/.vscode/launch.json': '',
      'docs/claude.md': '',
    });
    symlinkSync('docs/claude.md', join(root, 'CLAUDE.md'));
    symlinkSync('/elsewhere', join(root, '.gitlab'));
    const found = findProtected([root, join(root, 'sub')], entries);
    expect(
      found
        .map((f) => [f.top === root ? '.' : 'sub', f.rel, f.entry.path, f.type, f.link ?? '', f.onTheWay ?? false])
        .sort(),
    ).toEqual(
      [
        ['.', '.github/workflows', '.github/workflows', 'dir', '', false],
        ['.', '.gitlab', '.gitlab/CODEOWNERS', 'link', '/elsewhere', true],
        ['.', 'Agents.md', 'AGENTS.md', 'file', '', false],
        ['.', 'CLAUDE.md', 'CLAUDE.md', 'link', 'docs/claude.md', false],
        ['sub', '.vscode/tasks.json', '.vscode/tasks.json', 'file', '', false],
      ].sort(),
    );
  });

  it('sees a change made at once after a look at a settled directory (its listing is not reused)', async () => {
    const root = tree({ 'AGENTS.md': '' });
    await new Promise((r) => setTimeout(r, 2_100)); // settled: its listing may be kept
    const first = findProtected([root], entries);
    expect(first.map((f) => f.rel)).toEqual(['AGENTS.md']);
    writeFileSync(join(root, '.envrc'), 'x');
    expect(
      findProtected([root], entries)
        .map((f) => f.rel)
        .sort(),
    ).toEqual(['.envrc', 'AGENTS.md']);
    const view = protectedView(findProtected([root], entries));
    writeFileSync(join(root, 'AGENTS.md.tmp'), 'y');
    const { renameSync } = await import('node:fs');
    renameSync(join(root, 'AGENTS.md.tmp'), join(root, 'AGENTS.md')); // replaced: another inode
    expect(protectedView(findProtected([root], entries))).not.toBe(view);
  });
});

describe('holding them', () => {
  it('pins every directory between the root and an entry, nested tops included, never the root itself', () => {
    const root = tree({ 'a/sub/.github/workflows/x.yml': '', 'AGENTS.md': '' });
    const found = findProtected([root, join(root, 'a', 'sub')], entries);
    expect(pinArgs(found, [root], [])).toEqual([
      '--bind',
      join(root, 'a'),
      join(root, 'a'),
      '--bind',
      join(root, 'a', 'sub'),
      join(root, 'a', 'sub'),
      '--bind',
      join(root, 'a', 'sub', '.github'),
      join(root, 'a', 'sub', '.github'),
    ]);
    expect(readOnlyArgs(found, [root], () => false)).toEqual([
      '--ro-bind',
      join(root, 'AGENTS.md'),
      join(root, 'AGENTS.md'),
      '--ro-bind',
      join(root, 'a', 'sub', '.github', 'workflows'),
      join(root, 'a', 'sub', '.github', 'workflows'),
    ]);
  });

  it('leaves what a hidden path covers to the hiding: no read-only bind shows it, no pin covers its mount', () => {
    const root = tree({ '.claude/settings.json': '', 'x/.envrc': '', 'x/.ssh/id': '' });
    const found = findProtected([root, join(root, 'x')], entries);
    const hidden = [join(root, '.claude'), join(root, 'x', '.ssh')];
    const hiddenAt = (p: string): boolean => hidden.some((h) => p === h || p.startsWith(`${h}/`));
    expect(readOnlyArgs(found, [root], hiddenAt)).toEqual([
      '--ro-bind',
      join(root, 'x', '.envrc'),
      join(root, 'x', '.envrc'),
    ]);
    // x holds a hidden path: the hiding pins it (a second bind of x would cover the hidden mount).
    expect(pinArgs(found, [root], hidden)).toEqual([]);
  });

  it('holds a link where it really points, only inside a root and never onto a hidden path', () => {
    const root = tree({ 'docs/rules.md': '', '.ssh/id_rsa': 'secret' });
    symlinkSync('docs/rules.md', join(root, 'AGENTS.md'));
    symlinkSync('.ssh/id_rsa', join(root, 'CLAUDE.md'));
    symlinkSync('/etc/hostname', join(root, 'GEMINI.md'));
    symlinkSync('nowhere', join(root, '.envrc'));
    const found = findProtected([root], entries);
    const hiddenAt = (p: string): boolean => p.startsWith(join(root, '.ssh'));
    // Only the link to a file of the project: the secret stays hidden, /etc is read-only already, a dangling link holds nothing.
    expect(readOnlyArgs(found, [root], hiddenAt)).toEqual([
      '--ro-bind',
      join(root, 'docs', 'rules.md'),
      join(root, 'docs', 'rules.md'),
    ]);
  });
});
