// A file tool's change to a protected file, judged on a real directory through the gate's own reader: it asks with
// the change shown as a diff (a new file, an edit, a patch), at the task directory's top and a nested repository's;
// ordinary files, unchanged content and patches that will not apply need nobody; the files read are what the
// verdict is bound to.
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveProtected } from '../common/protected-paths.js';
import { readForFileTool } from '../files/gate-reads.js';
import { applyChange, judgeProtectedChange } from './protected-change.js';
import type { FileChange } from '../detector/engine/subject.js';

const entries = resolveProtected([]);

function project(files: Record<string, string>): string {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-protected-change-')));
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(join(cwd, p, '..'), { recursive: true });
    writeFileSync(join(cwd, p), text);
  }
  return cwd;
}

const judge = (cwd: string, tool: string, change: FileChange) =>
  judgeProtectedChange(tool, change, entries, (keys) => readForFileTool({ cwd }, keys));

describe('a file tool changing a protected file', () => {
  it('asks, showing the change to a workflow as a diff against the file as it is', async () => {
    const cwd = project({ '.github/workflows/ci.yml': 'name: ci\non: push\njobs: {}\n' });
    const j = await judge(cwd, 'write_file', {
      path: '.github/workflows/ci.yml',
      content: 'name: ci\non: [push, pull_request_target]\njobs: {}\n',
    });
    expect(j.finding).toMatchObject({ rule: 'protected-file', tier: 'dangerous' });
    expect(j.finding!.description).toMatch(/a CI service runs it/);
    expect(j.shown).toBe(
      [
        "write_file .github/workflows/ci.yml: .github/workflows/ci.yml is protected (a CI service runs it, with the repository's secrets). The change:",
        '--- .github/workflows/ci.yml (now)',
        '+++ .github/workflows/ci.yml (after this write_file)',
        '@@ -1,3 +1,3 @@',
        ' name: ci',
        '-on: push',
        '+on: [push, pull_request_target]',
        ' jobs: {}',
      ].join('\n'),
    );
    // The verdict holds for the file as read: a change to it afterwards is judged again before the write.
    expect([...j.files.keys()]).toEqual(['.github/workflows/ci.yml']);
    expect(j.files.get('.github/workflows/ci.yml')).toEqual({ text: 'name: ci\non: push\njobs: {}\n' });
  });

  it('shows a new file as all added, and a patch as the lines it changes', async () => {
    const cwd = project({ 'AGENTS.md': '# Rules\n\nAsk before pushing.\n' });
    const created = await judge(cwd, 'write_file', { path: 'CLAUDE.md', content: 'Never ask.\n' });
    expect(created.shown).toMatch(
      /--- \/dev\/null \(a new file\)\n\+\+\+ CLAUDE\.md \(after this write_file\)\n@@ -0,0 \+1,1 @@\n\+Never ask\.$/,
    );
    expect(created.files.get('CLAUDE.md')).toEqual({ missing: true });
    const patched = await judge(cwd, 'patch', {
      path: 'AGENTS.md',
      old: 'Ask before',
      new: 'Never ask before',
      all: false,
    });
    expect(patched.shown).toMatch(
      /@@ -1,3 \+1,3 @@\n # Rules\n \n-Ask before pushing\.\n\+Never ask before pushing\.$/,
    );
  });

  it('holds in a nested repository, by the deepest repository’s top', async () => {
    const cwd = project({ 'lib/sub/README': 'x\n', 'lib/sub/.git/HEAD': 'ref: refs/heads/main\n' });
    const j = await judge(cwd, 'write_file', { path: 'lib/sub/.gitlab-ci.yml', content: 'deploy: {}\n' });
    expect(j.finding?.rule).toBe('protected-file');
    // Where the path would match, whether the directory is a repository's top was read, and is bound too.
    expect(j.files.get('lib/sub/.git')).toEqual({ directory: true });
    const plain = project({ 'lib/sub/README': 'x\n' });
    expect(
      (await judge(plain, 'write_file', { path: 'lib/sub/.gitlab-ci.yml', content: 'deploy: {}\n' })).finding,
    ).toBeUndefined();
  });

  it('needs nobody for ordinary files, the same content, or a patch the tool will refuse', async () => {
    const cwd = project({ 'AGENTS.md': 'Rules.\n', 'src/util.py': 'x = 1\n' });
    const ordinary = await judge(cwd, 'write_file', { path: 'src/util.py', content: 'x = 2\n' });
    expect(ordinary).toEqual({ files: new Map() });
    expect((await judge(cwd, 'write_file', { path: 'AGENTS.md', content: 'Rules.\n' })).finding).toBeUndefined();
    expect(
      (await judge(cwd, 'patch', { path: 'AGENTS.md', old: 'absent', new: 'x', all: false })).finding,
    ).toBeUndefined();
  });

  it('shows the whole new content when the file cannot be read as text', async () => {
    const cwd = project({ '.envrc': 'x'.repeat(70 * 1024) });
    const j = await judge(cwd, 'write_file', { path: '.envrc', content: 'use nix\n' });
    expect(j.finding?.rule).toBe('protected-file');
    expect(j.shown).toMatch(/its current content is too big to check, so here is its whole new content:\nuse nix\n$/);
  });
});

describe('applyChange, as write_file and patch make it', () => {
  it.each([
    [undefined, { path: 'f', content: 'new' }, 'new'],
    ['a b a', { path: 'f', old: 'a', new: 'c', all: true }, 'c b c'],
    ['a b a', { path: 'f', old: 'a', new: 'c', all: false }, undefined],
    ['a b', { path: 'f', old: 'b', new: '$&$1', all: false }, 'a $&$1'],
    [undefined, { path: 'f', old: 'a', new: 'c', all: false }, undefined],
  ] as const)('%j with %j gives %j', (before, change, after) => {
    expect(applyChange(before, change as FileChange)).toBe(after);
  });
});
