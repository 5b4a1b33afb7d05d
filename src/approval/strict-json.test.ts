import { describe, expect, it } from 'vitest';
import { parseStrictJson } from './strict-json.js';

describe('parseStrictJson', () => {
  it('parses what JSON.parse parses', () => {
    for (const t of [
      '{}',
      '[]',
      '{"a":1,"b":[1,{"a":2}],"c":{"d":"x\\"y"}}',
      ' "s" ',
      '3',
      'null',
      '[{"a":1},{"a":2}]',
    ])
      expect(parseStrictJson(t)).toEqual(JSON.parse(t));
  });

  it('refuses a key that appears twice in one object, however it is spelled', () => {
    expect(() => parseStrictJson('{"choice":"deny","choice":"always"}')).toThrow(/"choice" appears twice/);
    expect(() => parseStrictJson('{"choice":"deny","\\u0063hoice":"always"}')).toThrow(/"choice" appears twice/);
    expect(() => parseStrictJson('{"a":{"b":1,"b":2}}')).toThrow(/"b" appears twice/);
    expect(() => parseStrictJson('[{"x":1, "x" :1}]')).toThrow(/"x" appears twice/);
  });

  it('refuses text that is not JSON, and nesting deeper than a decision needs', () => {
    expect(() => parseStrictJson('{"a":')).toThrow();
    expect(() => parseStrictJson(`${'['.repeat(100)}${']'.repeat(100)}`)).toThrow(/nested more than 64/);
  });
});
