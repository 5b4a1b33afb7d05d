import { describe, expect, it } from 'vitest';
import { parseBatchFile } from './batch-file.js';

describe('parseBatchFile', () => {
  it('reads task strings, objects and plain lines, and reports bad lines with their numbers', () => {
    const text = [
      '"summarise README.md"',
      '{"task": "list files", "toolsets": ["file"], "max_turns": 3}',
      '',
      '# a comment',
      'plain text task',
      '{"task": "broken"',
      '{"task": ""}',
      '{"task": "x", "colour": "red"}',
      '{"tasks": "typo"}',
      '{"task": "ok", "max_turns": -1}',
      '""',
    ].join('\n');
    const { items, bad } = parseBatchFile(text);
    expect(items.map((i) => [i.line, i.task, i.toolsets, i.maxTurns])).toEqual([
      [1, 'summarise README.md', undefined, undefined],
      [2, 'list files', 'file', 3],
      [5, 'plain text task', undefined, undefined],
    ]);
    expect(bad.map((b) => b.line)).toEqual([6, 7, 8, 9, 10, 11]);
    expect(bad[0]!.error).toMatch(/not valid JSON/);
    expect(bad[2]!.error).toMatch(/Unrecognized key: "colour"/);
    expect(bad[3]!.error).toMatch(/task: Invalid input/);
    expect(bad[5]!.error).toBe('the task is empty');
  });
});
