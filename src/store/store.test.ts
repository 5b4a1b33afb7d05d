import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { applyMemory, MEMORY_LIMIT_CHARS } from './memory.js';
import { ftsQuery, Store } from './store.js';

let store: Store;
const open = (): Store => (store = new Store(join(mkdtempSync(join(tmpdir(), 'tether-store-')), 'tether.sqlite')));
afterEach(() => store?.close());

describe('Store', () => {
  it('records transcript entries once, however often a retried activity sends them', () => {
    open();
    const entries = [
      { seq: 0, turn: 1, role: 'user', content: 'find the walrus' },
      { seq: 1, turn: 1, role: 'assistant', content: 'looking' },
    ];
    expect(store.record('wf-1', entries)).toBe(2);
    expect(store.record('wf-1', entries)).toBe(0);
    expect(store.search('walrus', 10)).toEqual([
      { workflowId: 'wf-1', turn: 1, role: 'user', tool: null, snippet: 'find the [walrus]' },
    ]);
    expect(store.search('walrus', 10, 'wf-1')).toEqual([]);
  });

  it('takes the words of a query only, so FTS syntax in it cannot break the search', () => {
    open();
    store.record('wf', [{ seq: 0, turn: 1, role: 'tool', content: 'DROP TABLE users happened' }]);
    expect(ftsQuery('"; DROP TABLE x; -- NEAR(')).toBe('"DROP" "TABLE" "x" "NEAR"');
    expect(store.search('"; DROP TABLE --', 5)).toHaveLength(1);
    expect(store.search('***', 5)).toEqual([]);
    expect(store.search('users nothere', 5)).toHaveLength(1); // no result for all words: any word
  });

  it('applies an operation once per id', () => {
    open();
    let runs = 0;
    const op = (): string => String((runs += 1));
    expect(store.once('op-1', op)).toBe('1');
    expect(store.once('op-1', op)).toBe('1');
    expect(runs).toBe(1);
  });
});

describe('memory', () => {
  it('adds, replaces and removes notes within the limit', () => {
    open();
    expect(JSON.parse(applyMemory(store, { action: 'add', content: 'a note' })).notes).toEqual(['a note']);
    expect(JSON.parse(applyMemory(store, { action: 'replace', old_text: 'a n', content: 'the note' })).notes).toEqual([
      'the note',
    ]);
    applyMemory(store, { action: 'add', content: 'the other note' });
    expect(JSON.parse(applyMemory(store, { action: 'remove', old_text: 'note' })).error).toMatch(
      /2 entries contain "note"/,
    );
    expect(JSON.parse(applyMemory(store, { action: 'remove', old_text: 'other' })).notes).toEqual(['the note']);
    for (let i = 0; i < 10; i += 1) applyMemory(store, { action: 'add', content: `${i}${'x'.repeat(1_990)}` });
    const full = JSON.parse(applyMemory(store, { action: 'add', content: 'y'.repeat(100) })) as { error: string };
    expect(full.error).toMatch(new RegExp(`memory is full: \\d+ of ${MEMORY_LIMIT_CHARS} characters used`));
  });
});
