// BoundedMap: which entries a set over a limit drops (least recently used first), and what counts as a use.
import { describe, expect, it } from 'vitest';
import { BoundedMap } from './bounded-map.js';

describe('BoundedMap', () => {
  it('drops the oldest entries past maxEntries, and get and set (not peek) make an entry the newest', () => {
    const m = new BoundedMap<string, number>({ maxEntries: 3 });
    m.set('a', 1).set('b', 2).set('c', 3);
    expect(m.get('a')).toBe(1); // a is now newest: b is the oldest
    expect(m.peek('b')).toBe(2); // not a use: b stays the oldest
    m.set('d', 4);
    expect([...m.keys()]).toEqual(['c', 'a', 'd']);
    m.set('c', 30); // setting an existing key is a use too
    m.set('e', 5);
    expect([...m.entries()]).toEqual([
      ['d', 4],
      ['c', 30],
      ['e', 5],
    ]);
    expect(m.has('a')).toBe(false);
    expect(m.get('a')).toBeUndefined();
    expect(m.size).toBe(3);
  });

  it('keeps the total size within maxSize, dropping the oldest first, and the new entry too if it alone is over', () => {
    const m = new BoundedMap<string, string>({ maxEntries: 10, maxSize: 10, sizeOf: (v) => v.length });
    m.set('a', 'xxxx').set('b', 'xxxx');
    expect(m.totalSize).toBe(8);
    m.set('c', 'xxx');
    expect([...m.keys()]).toEqual(['b', 'c']);
    expect(m.totalSize).toBe(7);
    m.set('b', 'x'); // replacing counts the new size, not both
    expect(m.totalSize).toBe(4);
    expect(m.delete('c')).toBe(true);
    expect(m.delete('c')).toBe(false);
    expect(m.totalSize).toBe(1);
    m.set('big', 'x'.repeat(11));
    expect(m.size).toBe(0);
    expect(m.totalSize).toBe(0);
  });

  it('may be emptied, and deleted from while iterating', () => {
    const m = new BoundedMap<number, number>({ maxEntries: 10, sizeOf: (v) => v });
    for (let i = 1; i <= 5; i++) m.set(i, i);
    for (const [k, v] of m.entries()) if (v % 2 === 0) m.delete(k);
    expect([...m.values()]).toEqual([1, 3, 5]);
    expect(m.totalSize).toBe(9);
    m.clear();
    expect(m.size).toBe(0);
    expect(m.totalSize).toBe(0);
  });
});
