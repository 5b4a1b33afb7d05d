import { describe, expect, it } from 'vitest';
import { badPattern, ExcludeRules } from './checkpoint-exclude.js';

describe('exclude rules', () => {
  const rules = new ExcludeRules(['*.log', '/secret.txt', 'docs/**/draft', 'data/', '!build/', 'tmp?.txt', 'x[0-9]']);
  it.each([
    ['node_modules', true, true],
    ['a/b/node_modules', true, true],
    ['node_modules', false, false], // a file of that name is kept: the default names a directory
    ['.git', true, true],
    ['src/.git', true, true],
    ['mod.pyc', false, true],
    ['pkg/__pycache__', true, true],
    ['dist', true, true],
    ['build', true, false], // re-included by !build/
    ['app.log', false, true],
    ['deep/app.log', false, true],
    ['secret.txt', false, true],
    ['sub/secret.txt', false, false], // anchored to the top
    ['docs/draft', false, true],
    ['docs/a/b/draft', false, true],
    ['data', true, true],
    ['data', false, false],
    ['tmp1.txt', false, true],
    ['tmp12.txt', false, false],
    ['x7', false, true],
    ['xa', false, false],
    ['src/index.ts', false, false],
    ['new\nline.log', false, true], // '*' crosses a newline within a name
  ])('%j (directory: %s) left out: %s', (path, isDir, out) => {
    expect(rules.excluded(path, isDir)).toBe(out);
  });

  it('matches names that are not ASCII by their bytes', () => {
    const r = new ExcludeRules(['café.txt']);
    expect(r.excluded(Buffer.from('café.txt').toString('latin1'), false)).toBe(true);
  });

  it('names a pattern that matches nothing', () => {
    expect(badPattern(['ok', '/'])).toBe("'/' matches nothing");
    expect(badPattern(['*.tmp', '# a comment', ''])).toBeUndefined();
  });
});
