// Usage and cost per run: priced only with a price for the model, tolerant of what older runs lack.
import { describe, expect, it } from 'vitest';
import { formatUsage, runUsage } from './usage.js';

const prices = { 'gpt-4o-mini': { input: 0.15, output: 0.6 }, free: { input: 0, output: 0 } };

describe('runUsage', () => {
  it('prices by model, per million tokens', () => {
    expect(
      runUsage({ promptTokens: 1_000_000, completionTokens: 500_000, totalTokens: 0 }, 'gpt-4o-mini', prices),
    ).toEqual({
      inputTokens: 1_000_000,
      outputTokens: 500_000,
      costUsd: 0.45,
    });
    expect(runUsage({ promptTokens: 320, completionTokens: 37 }, 'gpt-4o-mini', prices)?.costUsd).toBe(0.00007);
    expect(runUsage({ promptTokens: 10, completionTokens: 5 }, 'free', prices)?.costUsd).toBe(0);
  });

  it('gives tokens without a cost for a model with no price, and nothing without usage', () => {
    expect(runUsage({ promptTokens: 3, completionTokens: 4 }, 'other', prices)).toEqual({
      inputTokens: 3,
      outputTokens: 4,
    });
    expect(runUsage({ promptTokens: 3, completionTokens: 4 }, undefined, prices)).toEqual({
      inputTokens: 3,
      outputTokens: 4,
    });
    expect(runUsage(undefined, 'gpt-4o-mini', prices)).toBeUndefined();
    // A model named like an Object property is not priced by the prototype.
    expect(runUsage({ promptTokens: 1, completionTokens: 1 }, 'constructor', prices)).toEqual({
      inputTokens: 1,
      outputTokens: 1,
    });
  });

  it('reads broken numbers as 0', () => {
    expect(runUsage({ promptTokens: -5, completionTokens: Number.NaN }, 'gpt-4o-mini', prices)).toEqual({
      inputTokens: 0,
      outputTokens: 0,
      costUsd: 0,
    });
  });
});

describe('formatUsage', () => {
  it('shows cents for larger costs and millionths for small ones', () => {
    expect(formatUsage({ inputTokens: 320, outputTokens: 37 })).toBe('320 in / 37 out tokens');
    expect(formatUsage({ inputTokens: 320, outputTokens: 37, costUsd: 0.00007 })).toBe(
      '320 in / 37 out tokens · $0.000070',
    );
    expect(formatUsage({ inputTokens: 1, outputTokens: 1, costUsd: 1.5 })).toBe('1 in / 1 out tokens · $1.5000');
  });
});
