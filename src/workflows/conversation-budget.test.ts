import { describe, expect, it } from 'vitest';
import { keepWithinBudget } from './conversation-budget.js';
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
