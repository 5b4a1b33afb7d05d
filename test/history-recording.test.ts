// Recording a workflow history never replaces an earlier recording: each one gets the next versioned file name.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { historiesDir, nextHistoryFile, writeNewHistory } from './support/history.js';

const scratch = (): string => mkdtempSync(join(tmpdir(), 'tether-histories-'));

describe('recording histories', () => {
  it('writes name.json, then name-v2.json, name-v3.json, leaving each earlier file as it was', () => {
    const dir = scratch();
    expect(writeNewHistory(dir, 'multi-turn', '{"first":1}')).toBe('multi-turn.json');
    expect(writeNewHistory(dir, 'multi-turn', '{"second":2}')).toBe('multi-turn-v2.json');
    expect(writeNewHistory(dir, 'multi-turn', '{"third":3}')).toBe('multi-turn-v3.json');
    expect(readdirSync(dir).sort()).toEqual(['multi-turn-v2.json', 'multi-turn-v3.json', 'multi-turn.json']);
    expect(readFileSync(join(dir, 'multi-turn.json'), 'utf8')).toBe('{"first":1}');
    expect(readFileSync(join(dir, 'multi-turn-v2.json'), 'utf8')).toBe('{"second":2}');
  });

  it('numbers past the highest version present, and ignores other names that share a prefix', () => {
    const dir = scratch();
    writeFileSync(join(dir, 'delegation-v4.json'), '{}');
    writeFileSync(join(dir, 'delegation-extra.json'), '{}');
    expect(nextHistoryFile(dir, 'delegation')).toBe('delegation-v5.json');
    expect(nextHistoryFile(dir, 'delegation-extra')).toBe('delegation-extra-v2.json');
    expect(nextHistoryFile(dir, 'loop')).toBe('loop.json');
  });

  it('refuses a name that would make versions ambiguous', () => {
    expect(() => nextHistoryFile(scratch(), 'loop-v2')).toThrow(/kebab-case without a -vN ending/);
    expect(() => nextHistoryFile(scratch(), '../escape')).toThrow(/kebab-case/);
  });

  it('re-recording every committed history would add files, never replace one', () => {
    const committed = readdirSync(historiesDir);
    for (const file of committed) {
      const name = file.replace(/(?:-v\d+)?\.json$/, '');
      expect(committed).not.toContain(nextHistoryFile(historiesDir, name));
    }
  });
});
