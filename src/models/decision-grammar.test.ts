import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../common/tool-definition.js';
import { decisionSchema, MAX_STRING_CHARS, toGrammarSchema } from './decision-grammar.js';
import { toLocalHistory } from './local-history.js';
import { toMessage } from './local-provider.js';

const readFile: ToolDefinition = {
  type: 'function',
  function: {
    name: 'read_file',
    description: 'Read a file.\nMore text.',
    parameters: {
      type: 'object',
      properties: { path: { type: 'string', minLength: 1 }, limit: { type: 'integer', minimum: 1 } },
      required: ['path'],
    },
  },
};

describe('toGrammarSchema', () => {
  it('keeps required properties only, closes objects and bounds strings', () => {
    expect(toGrammarSchema(readFile.function.parameters)).toEqual({
      type: 'object',
      properties: { path: { type: 'string', minLength: 1, maxLength: MAX_STRING_CHARS } },
      required: ['path'],
      additionalProperties: false,
    });
  });

  it('maps enums, arrays, anyOf and unknown shapes to what a grammar accepts', () => {
    expect(toGrammarSchema({ enum: ['a', 'b'] })).toEqual({ enum: ['a', 'b'] });
    expect(toGrammarSchema({ type: 'array', items: { type: 'number', minimum: 0 }, minItems: 1 })).toEqual({
      type: 'array',
      items: { type: 'number' },
      minItems: 1,
    });
    expect(toGrammarSchema({ anyOf: [{ type: 'string' }, { type: 'null' }] })).toEqual({
      oneOf: [{ type: 'string', maxLength: MAX_STRING_CHARS }, { type: 'null' }],
    });
    expect(toGrammarSchema({})).toEqual({ type: ['string', 'number', 'boolean', 'null'] });
  });
});

describe('decisionSchema', () => {
  it('offers tool calls, the answer, or both', () => {
    const tool = decisionSchema([readFile], 'tool');
    expect(tool).toMatchObject({ properties: { tool: { const: 'read_file' } } });
    const answer = decisionSchema([readFile], 'answer');
    expect(answer).toMatchObject({ properties: { answer: { type: 'string' } } });
    expect((decisionSchema([readFile], 'either').oneOf as unknown[]).length).toBe(2);
    // With no tools a tool call cannot be required.
    expect(decisionSchema([], 'tool')).toMatchObject({ required: ['answer'] });
  });
});

describe('local conversation', () => {
  it('describes tools in the system turn and shows tool results as user turns', () => {
    const history = toLocalHistory(
      [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'task' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a"}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: '{"content":"x"}' },
      ],
      [readFile],
    );
    expect(history).toEqual([
      { type: 'system', text: expect.stringContaining('- read_file(path, limit): Read a file.') },
      { type: 'user', text: 'task' },
      { type: 'model', response: ['{"tool":"read_file","arguments":{"path":"a"}}'] },
      { type: 'user', text: 'Result of read_file: {"content":"x"}' },
    ]);
  });

  it('turns a reply into a tool call, an answer, or text when it is not JSON', () => {
    expect(toMessage('{"tool":"read_file","arguments":{"path":"a"}}', 0).tool_calls).toEqual([
      { id: 'local_1_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a"}' } },
    ]);
    expect(toMessage('{"answer":"done"}', 1)).toEqual({ role: 'assistant', content: 'done' });
    expect(toMessage('{"answer": "cut', 1).content).toBe('{"answer": "cut');
  });
});
