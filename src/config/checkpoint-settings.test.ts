// The `checkpoints` section: its short forms, and one line naming the setting for each mistake.
import { describe, expect, it } from 'vitest';
import { parseConfig } from './config.js';

const parse = (checkpoints: unknown) => parseConfig({ checkpoints }, 'config.yaml').checkpoints;

describe('checkpoints settings', () => {
  it('has defaults, and short forms for on and off', () => {
    expect(parseConfig({}).checkpoints).toEqual({
      enabled: true,
      exclude: [],
      max_file_bytes: 64 * 1024 * 1024,
      max_files: 100_000,
      keep: { count: 50, age: 14 * 86400 },
    });
    expect(parse(false).enabled).toBe(false);
    expect(parse('off').enabled).toBe(false);
    expect(parse(true).enabled).toBe(true);
    expect(parse({ max_file_bytes: '50m', keep: { age: '12h' } })).toMatchObject({
      max_file_bytes: 50 * 1024 * 1024,
      keep: { count: 50, age: 12 * 3600 },
    });
  });

  it.each([
    [
      'maybe',
      'config.yaml: checkpoints: false, true, or a mapping with enabled, exclude, max_file_bytes, max_files and keep',
    ],
    [{ enabeld: true }, 'config.yaml: checkpoints.enabeld: unknown key (did you mean enabled?)'],
    [{ keep: { count: 0 } }, 'config.yaml: checkpoints.keep.count: Too small: expected number to be >0'],
    [
      { max_file_bytes: 'lots' },
      'config.yaml: checkpoints.max_file_bytes: "lots" is not a size: give bytes (1048576) or 512k, 64m, 1g',
    ],
    [{ exclude: ['/'] }, "config.yaml: checkpoints.exclude: '/' matches nothing"],
    [{ keep: { age: '2w' } }, /^config\.yaml: checkpoints\.keep\.age: "2w" is not a duration/],
  ])('%j: %s', (value, message) => {
    expect(() => parse(value)).toThrow(message);
  });
});
