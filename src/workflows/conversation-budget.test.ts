import { describe, expect, it } from 'vitest';
import {
  CONVERSATION_BUDGET_BYTES,
  CONVERSATION_BUDGET_CHARS,
  conversationBytes,
  conversationSize,
  headOf,
  keepWithinBudget,
  tailOf,
} from './conversation-budget.js';
import { jsonBytes, jsonStringBytes } from './payload-limits.js';
import type { ChatMessage } from '../common/types.js';

const big = (n: number, c = 'x') => c.repeat(n);

function conversation(): ChatMessage[] {
  return [
    { role: 'system', content: big(5_000, 's') },
    { role: 'user', content: big(5_000, 'u') },
    {
      role: 'assistant',
      content: big(10_000, 'a'),
      tool_calls: [{ id: '1', type: 'function', function: { name: 't', arguments: '{}' } }],
    },
    { role: 'tool', tool_call_id: '1', content: big(60_000, '1') },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: '2', type: 'function', function: { name: 't', arguments: '{}' } }],
    },
    { role: 'tool', tool_call_id: '2', content: big(60_000, '2') },
  ];
}

describe('keepWithinBudget', () => {
  it('leaves a small conversation alone', () => {
    const m = conversation();
    expect(keepWithinBudget(m, 1_000_000)).toBe(0);
    expect(m).toEqual(conversation());
  });

  it('shortens the oldest tool results first, keeping head and tail, until it fits', () => {
    const m = conversation();
    expect(keepWithinBudget(m, 100_000)).toBe(1);
    expect(m[3]!.content!.length).toBeLessThan(2_200);
    expect(m[3]!.content!.startsWith('1111')).toBe(true);
    expect(m[3]!.content!.endsWith('1111')).toBe(true);
    expect(m[3]!.content).toContain('characters of this older message removed');
    // The latest turn's result, the system prompt and the task are untouched.
    expect(m[5]!.content).toBe(big(60_000, '2'));
    expect(m[0]!.content).toBe(big(5_000, 's'));
    expect(m[1]!.content).toBe(big(5_000, 'u'));
  });

  it('goes on to older assistant turns, then the latest results, when that is not enough, and stops when nothing is left', () => {
    const m = conversation();
    expect(keepWithinBudget(m, 70_000)).toBe(3);
    expect(m[2]!.content!.length).toBeLessThan(2_200);
    expect(m[5]!.content!.length).toBeLessThan(2_200);
    expect(keepWithinBudget(m, 10)).toBe(0);
  });
});

describe('keepWithinBudget, the latest turn', () => {
  it('shortens the latest tool results too when everything else is not enough', () => {
    const results = Array.from({ length: 4 }, (_, i): ChatMessage => ({
      role: 'tool',
      tool_call_id: `c${i}`,
      content: 'r'.repeat(50_000),
    }));
    const messages: ChatMessage[] = [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'task' },
      {
        role: 'assistant',
        content: null,
        tool_calls: results.map((r) => ({
          id: r.tool_call_id!,
          type: 'function',
          function: { name: 't', arguments: '{}' },
        })),
      },
      ...results,
    ];
    expect(keepWithinBudget(messages, 120_000)).toBeGreaterThan(0);
    expect(messages.reduce((n, m) => n + (m.content?.length ?? 0), 0)).toBeLessThanOrEqual(120_000);
  });
});

// A 4-byte character is two UTF-16 units: counted as characters it looks half its size, and cut between its units
// it becomes two lone surrogates that JSON escapes to six bytes each.
const EMOJI = '\u{1F600}';

describe('sizes in bytes', () => {
  it.each([
    ['ASCII', 'plain text'],
    ['quotes, backslashes and newlines', 'a "quoted" \\ path\n\tand tab'],
    ['control characters (six bytes each)', '\u0001\u0002\u001f'],
    ['2- and 3-byte characters', 'é ü 中文 €'],
    ['4-byte characters', EMOJI.repeat(5)],
    ['a lone high surrogate', `x\ud83dy`],
    ['a lone low surrogate at the end', `x\ude00`],
  ])('counts %s exactly as the payload converter writes them', (_, text) => {
    expect(jsonStringBytes(text)).toBe(Buffer.byteLength(JSON.stringify(text), 'utf8'));
    expect(jsonBytes({ content: text })).toBe(Buffer.byteLength(JSON.stringify({ content: text }), 'utf8'));
  });

  it('cuts a message at a character boundary, never between the two halves of a 4-byte character', () => {
    const text = `a${EMOJI.repeat(10)}`; // the emoji start at unit 1, so every even cut lands mid-character
    for (let n = 0; n <= text.length; n += 1) {
      expect(JSON.stringify(headOf(text, n))).not.toMatch(/\\ud/);
      expect(JSON.stringify(tailOf(text, n))).not.toMatch(/\\ud/);
      expect(headOf(text, n).length).toBeGreaterThanOrEqual(n - 1);
    }
  });
});

describe('keepWithinBudget in bytes, with 4-byte characters at the limit', () => {
  /** A conversation whose content is `bytes` bytes of JSON, nearly all of it 4-byte characters in one old tool result. */
  function atBytes(bytes: number): ChatMessage[] {
    const messages: ChatMessage[] = [
      { role: 'system', content: 's' },
      { role: 'user', content: 'task' },
      { role: 'assistant', content: null, tool_calls: [{ id: '1', type: 'function', function: { name: 't', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: '1', content: '' },
      { role: 'assistant', content: 'latest' },
    ];
    const rest = bytes - conversationBytes(messages);
    messages[3]!.content = EMOJI.repeat(Math.floor(rest / 4)) + 'x'.repeat(rest % 4);
    expect(conversationBytes(messages)).toBe(bytes);
    return messages;
  } // prettier-ignore

  it('leaves a conversation of exactly the budget alone, though it is half that in characters', () => {
    const m = atBytes(CONVERSATION_BUDGET_BYTES);
    expect(conversationSize(m)).toBeLessThan(CONVERSATION_BUDGET_BYTES / 2 + 100);
    expect(keepWithinBudget(m, CONVERSATION_BUDGET_BYTES, conversationBytes)).toBe(0);
  });

  it('shortens one byte over the budget to within it, with whole characters only', () => {
    const m = atBytes(CONVERSATION_BUDGET_BYTES + 1);
    expect(keepWithinBudget(m, CONVERSATION_BUDGET_BYTES, conversationBytes)).toBe(1);
    expect(conversationBytes(m)).toBeLessThanOrEqual(CONVERSATION_BUDGET_BYTES);
    expect(JSON.stringify(m)).not.toMatch(/\\ud[89ab]/);
    expect(m[3]!.content).toContain('characters of this older message removed');
  });

  it('keeps a conversation under the payload limit where the character budget did not', () => {
    // Terminal output full of control characters: each is one character and six bytes of JSON.
    const control = (): ChatMessage[] => [
      { role: 'system', content: 's' },
      { role: 'user', content: 'task' },
      ...Array.from({ length: 8 }, (_, i): ChatMessage[] => [
        { role: 'assistant', content: null, tool_calls: [{ id: `${i}`, type: 'function', function: { name: 't', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: `${i}`, content: '\u0001'.repeat(60_000) },
      ]).flat(),
      { role: 'assistant', content: 'latest' },
    ]; // prettier-ignore
    const byChars = control();
    keepWithinBudget(byChars);
    expect(conversationSize(byChars)).toBeLessThanOrEqual(CONVERSATION_BUDGET_CHARS);
    expect(conversationBytes(byChars)).toBeGreaterThan(2 * 1024 * 1024); // what Temporal refused
    const byBytes = control();
    keepWithinBudget(byBytes, CONVERSATION_BUDGET_BYTES, conversationBytes);
    expect(conversationBytes(byBytes)).toBeLessThanOrEqual(CONVERSATION_BUDGET_BYTES);
  });
});
