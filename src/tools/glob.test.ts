import { describe, expect, it } from 'vitest';
import { globMatches, globToRegExp } from './glob.js';

describe('globToRegExp', () => {
  it.each([
    ['*.ts', 'a.ts', true],
    ['*.ts', 'a.tsx', false],
    ['src/*.ts', 'src/deep/a.ts', false],
    ['src/**/*.ts', 'src/a.ts', true],
    ['src/**/*.ts', 'src/x/y/a.ts', true],
    ['file?.md', 'file1.md', true],
    ['*.{js,ts}', 'm.js', true],
    ['*.{js,ts}', 'm.py', false],
    ['a+b(1).txt', 'a+b(1).txt', true],
  ])('%s on %s → %s', (glob, path, expected) => {
    expect(globMatches(globToRegExp(glob), path, glob.includes('/'))).toBe(expected);
  });
});
