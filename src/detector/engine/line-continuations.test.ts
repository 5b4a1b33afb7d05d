import { beforeAll, describe, expect, it } from 'vitest';
import { detect } from './detect.js';
import { continuationsJoined } from './analysis-state.js';
import { loadBashParser, type ParseBash } from './parser.js';

let parse: ParseBash;
beforeAll(async () => {
  parse = await loadBashParser();
});
const rules = (line: string): string[] => detect(parse, line, { cwd: '/work/proj' }).findings.map((f) => f.rule);

describe('a line split with backslash-newline, read as bash reads it', () => {
  it.each([
    ['r\\\nm -rf ~', 'delete-home'],
    ['gi\\\nt push --force origin main', 'git-force-push'],
    ['r\\\n\\\nm -rf ~', 'delete-home'],
    ['bash -c "r\\\nm -rf ~"', 'delete-home'],
    ['bash <<EOF\nr\\\nm -rf ~\nEOF', 'delete-home'],
    // a backslash before a carriage return quotes the return: the newline after it ends the command
    ['echo hi\\\r\nrm -rf ~', 'delete-home'],
    // a comment ends at its newline: a backslash at its end continues nothing
    ['# note \\\nrm -rf ~', 'delete-home'],
    // an escaped backslash before the newline: the newline ends the command
    ['echo a\\\\\nrm -rf ~', 'delete-home'],
  ])('asks: %j', (line, rule) => {
    expect(rules(line)).toContain(rule);
  });

  it.each([
    'docker run \\\n  -v "$PWD:/src" \\\n  alpine ls /src',
    'npm install \\\n  --save-dev vitest',
    'git commit -m "fix: \\\ntypo"',
    "echo 'a\\\nb'",
  ])('does not ask: %j', (line) => {
    expect(rules(line)).toEqual([]);
  });

  it('reads a second time only where bash and the grammar differ', () => {
    expect(continuationsJoined('ls \\\n  -la')).toBeUndefined();
    expect(continuationsJoined('ls -la')).toBeUndefined();
    expect(continuationsJoined('r\\\nm x')).toBe('rm x');
    expect(continuationsJoined('a\\\r\nb')).toBe("a$'\\r'\nb");
  });
});

describe('wrappers stacked any number deep', () => {
  it.each([17, 40, 300])('judges what %i stacked env wrappers run', (n) => {
    expect(rules(`${'env '.repeat(n)}rm -rf ~`)).toContain('delete-home');
    expect(rules(`${'sudo '.repeat(n)}rm -rf ~`)).toContain('delete-home');
  });

  it('reads an ordinary command under many wrappers as ordinary', () => {
    expect(rules(`${'nice '.repeat(30)}ls -la`)).toEqual([]);
  });
});
