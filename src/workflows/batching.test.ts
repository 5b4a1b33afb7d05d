import { describe, expect, it } from 'vitest';
import { chunk, normalisePath, planSegments, type PlannedCall } from './batching.js';
import type { ToolMeta } from '../common/types.js';

const read: ToolMeta = { emoji: '', parallelSafe: true, sideEffects: 'read-only', pathArg: 'path', timeoutSeconds: 60 };
const write: ToolMeta = {
  emoji: '',
  parallelSafe: true,
  sideEffects: 'idempotent',
  pathArg: 'path',
  timeoutSeconds: 60,
};
const web: ToolMeta = { emoji: '', parallelSafe: true, sideEffects: 'read-only', timeoutSeconds: 60 };
const terminal: ToolMeta = { emoji: '', parallelSafe: false, sideEffects: 'changes-world', timeoutSeconds: 60 };
const unsafeWriter: ToolMeta = { emoji: '', parallelSafe: true, sideEffects: 'changes-world', timeoutSeconds: 60 };

let n = 0;
function call(name: string, meta: ToolMeta | undefined, args: object | string = {}): PlannedCall {
  return { position: n++, name, meta, args: typeof args === 'string' ? args : JSON.stringify(args) };
}
const shape = (segments: PlannedCall[][]) => segments.map((s) => s.map((c) => c.position));

describe('planSegments', () => {
  it('groups consecutive parallel-safe calls and isolates terminal calls, keeping order', () => {
    n = 0;
    const calls = [
      call('read_file', read, { path: 'a' }),
      call('web', web),
      call('terminal', terminal),
      call('terminal', terminal),
      call('read_file', read, { path: 'b' }),
    ];
    expect(shape(planSegments(calls, '/w'))).toEqual([[0, 1], [2], [3], [4]]);
  });

  it('splits file calls whose paths overlap with a writer, but not readers of the same file', () => {
    n = 0;
    const calls = [
      call('read_file', read, { path: 'src/a.ts' }),
      call('read_file', read, { path: './src/a.ts' }),
      call('write_file', write, { path: 'src/b.ts' }),
      call('write_file', write, { path: 'src/../src/b.ts' }),
      call('search_files', read, { path: 'lib' }),
      call('search_files', read, {}),
    ];
    // 3 writes the file 2 wrote; the search of '.' covers src/b.ts, which 3 writes.
    expect(shape(planSegments(calls, '/w'))).toEqual([[0, 1, 2], [3, 4], [5]]);
  });

  it('runs alone a parallel-safe tool that changes the world without declaring its path, and unknown tools', () => {
    n = 0;
    const calls = [
      call('a', read, { path: 'x' }),
      call('mystery', unsafeWriter),
      call('nope', undefined),
      call('b', read, { path: 'y' }),
    ];
    expect(shape(planSegments(calls, '/w'))).toEqual([[0], [1], [2], [3]]);
  });

  it('does not trip over arguments that are not JSON', () => {
    n = 0;
    expect(
      shape(planSegments([call('read_file', read, '{oops'), call('write_file', write, { path: 'x' })], '/w')),
    ).toEqual([[0, 1]]);
  });
});

describe('helpers', () => {
  it('normalises paths against the working directory', () => {
    expect(normalisePath('/w/p', '../q/./r')).toBe('/w/q/r');
    expect(normalisePath('/w', '/abs//x/')).toBe('/abs/x');
  });

  it('chunks into slices of at most the given size', () => {
    expect(chunk([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
  });
});
