// What `tether batch` refuses in a batch file, and how: each bad line named by its number, the rest still run.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { looksLikeACrash } from '../support/cli-process.js';
import { parseBatchFile } from '../../src/batch/batch-file.js';

describe('tether batch refuses', () => {
  it('lines that are JSON but not a task (a list, null, a number, true), naming the line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tether-bad-batch-'));
    const file = join(dir, 'tasks.jsonl');
    writeFileSync(file, ['[1,2,3]', 'null', '42', 'true', '{"task": ["not", "text"]}'].join('\n'));
    const r = await runCli(['batch', file], { cwd: dir, env: { TETHER_HOME: dir } });
    expect(r.code).toBe(1);
    expect(looksLikeACrash(r.stderr)).toBe(false);
    expect(r.stderr.split('\n').slice(0, 6)).toEqual([
      `${file}:1: skipped: JSON an array is not a task: give the task's text, a JSON string, or an object with "task"`,
      `${file}:2: skipped: JSON null is not a task: give the task's text, a JSON string, or an object with "task"`,
      `${file}:3: skipped: JSON a number is not a task: give the task's text, a JSON string, or an object with "task"`,
      `${file}:4: skipped: JSON a boolean is not a task: give the task's text, a JSON string, or an object with "task"`,
      expect.stringMatching(new RegExp(`^${file}:5: skipped: task: `)),
      `tether: ${file}: no runnable task`,
    ]);
  });

  it('still takes text that only looks like JSON, and quoted numbers, as tasks', () => {
    const { items, bad } = parseBatchFile(['[WIP] tidy the README', '"42"', '{"task": "x"}'].join('\n'));
    expect(items.map((i) => i.task)).toEqual(['[WIP] tidy the README', '42', 'x']);
    expect(bad).toEqual([]);
  });
});
