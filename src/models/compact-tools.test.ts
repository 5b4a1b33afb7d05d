import { describe, expect, it } from 'vitest';
import { compactTools, shortDescription } from './compact-tools.js';

describe('compactTools', () => {
  it('keeps required parameters and optional enums; cuts descriptions to their first line and drops bounds', () => {
    const [t] = compactTools([
      {
        type: 'function',
        function: {
          name: 'read_file',
          description: 'Read a text file. Returns numbered lines.\nMore.',
          parameters: {
            type: 'object',
            properties: {
              path: { type: 'string', minLength: 1, description: 'File path, relative. Long tail.' },
              limit: { type: 'integer', minimum: 1, maximum: 5000 },
              mode: { type: 'string', enum: ['a', 'b'] },
            },
            required: ['path'],
          },
        },
      },
    ]);
    expect(t).toEqual({
      type: 'function',
      function: {
        name: 'read_file',
        description: 'Read a text file. Returns numbered lines.',
        parameters: {
          type: 'object',
          properties: {
            path: { type: 'string', description: 'File path, relative. Long tail.' },
            mode: { type: 'string', enum: ['a', 'b'] },
          },
          required: ['path'],
        },
      },
    });
  });

  it('cuts a long line at the last sentence end that fits, never inside a word like e.g.', () => {
    expect(shortDescription('No stop\nsecond line')).toBe('No stop');
    expect(shortDescription('One. Two. Three.', 10)).toBe('One. Two.');
    expect(shortDescription('Use e.g.x here and there', 12)).toBe('Use e.g.x…');
  });
});
