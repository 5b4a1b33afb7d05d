// eval:contained reads JSONL rows ({"cmd", "label": flag|allow, "category"}) and the project's own corpus files;
// a line that is not a row is skipped with one line saying why, and the rest run.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { readRows, sampleRows } from '../bench/contained/rows.js';

const file = (name: string, text: string): string => {
  const path = join(mkdtempSync(join(tmpdir(), 'tether-contained-rows-')), name);
  writeFileSync(path, text);
  return path;
};

it('reads JSONL rows, skipping each line that is not one with its reason', () => {
  const { rows, skipped } = readRows(
    file(
      'rows.jsonl',
      [
        '{"cmd": "rm -rf /srv/x", "label": "flag", "category": "deletion"}',
        '{"cmd": "ls", "label": "allow"}',
        '{"cmd": "cat x", "label": "ordinary", "category": "read", "cwd": "/srv/app"}',
        'not json',
        '[1, 2]',
        '{"cmd": "", "label": "flag"}',
        '{"cmd": "x", "label": "maybe"}',
        '',
      ].join('\n'),
    ),
  );
  expect(rows).toEqual([
    { id: 'rows.jsonl:1', cmd: 'rm -rf /srv/x', label: 'dangerous', category: 'deletion', cwd: '/work/proj' },
    { id: 'rows.jsonl:2', cmd: 'ls', label: 'ordinary', category: 'uncategorised', cwd: '/work/proj' },
    { id: 'rows.jsonl:3', cmd: 'cat x', label: 'ordinary', category: 'read', cwd: '/srv/app' },
  ]);
  expect(skipped).toEqual([
    'rows.jsonl:4: not JSON',
    'rows.jsonl:5: not a JSON object',
    'rows.jsonl:6: "cmd" must be a non-empty string',
    'rows.jsonl:7: "label" must be "flag" or "allow" (or "dangerous", "ordinary")',
  ]);
});

it('reads a corpus file of the project’s own format', () => {
  const { rows } = readRows(
    file('part.txt', '# a comment\n@@ dangerous deletion\nrm -rf ~\n\n@@ ordinary read\nls -la\n'),
  );
  expect(rows).toEqual([
    { id: 'part.txt:3', cmd: 'rm -rf ~', label: 'dangerous', category: 'deletion', cwd: '/work/proj' },
    { id: 'part.txt:6', cmd: 'ls -la', label: 'ordinary', category: 'read', cwd: '/work/proj' },
  ]);
});

it('samples rows evenly, keeping each group its share, the same rows every time', () => {
  const rows = [...Array.from({ length: 60 }, (_, i) => `a${i}`), ...Array.from({ length: 40 }, (_, i) => `b${i}`)];
  const s = sampleRows(rows, 10);
  expect(s).toHaveLength(10);
  expect(s.filter((r) => r.startsWith('a'))).toHaveLength(6);
  expect(new Set(s).size).toBe(10);
  expect(sampleRows(rows, 10)).toEqual(s);
  expect(sampleRows(rows, 500)).toEqual(rows);
});
