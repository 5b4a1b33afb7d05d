import { describe, expect, it } from 'vitest';
import { compactTools, firstSentence } from './compact-tools.js';

describe('compactTools', () => {
  it('keeps names, types, enums and required; cuts descriptions to a sentence and drops bounds', () => {
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
        description: 'Read a text file.',
        parameters: {
          type: 'object',
          properties: {
            path: { type: 'string', description: 'File path, relative.' },
            limit: { type: 'integer' },
            mode: { type: 'string', enum: ['a', 'b'] },
          },
          required: ['path'],
        },
      },
    });
  });

  it('finds the first sentence without cutting inside one', () => {
    expect(firstSentence('Use e.g.x here')).toBe('Use e.g.x here');
    expect(firstSentence('One. Two.')).toBe('One.');
    expect(firstSentence('No stop\nsecond line')).toBe('No stop');
  });
});
