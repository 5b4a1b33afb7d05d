// didYouMean names the known key a typo most likely meant, and nothing for a word that is not near any.
import { describe, expect, it } from 'vitest';
import { didYouMean } from './did-you-mean.js';

describe('didYouMean', () => {
  it.each([
    ['aprovals', ['approvals', 'terminal', 'web'], 'approvals'],
    ['temrinal', ['approvals', 'terminal'], 'terminal'],
    ['max-timeout', ['max_timeout', 'default_timeout'], 'max_timeout'],
    ['Web', ['web', 'browser'], 'web'],
    ['runn', ['run', 'status', 'attach'], 'run'],
    ['checkpoint', ['checkpoints', 'command_allowlist'], 'checkpoints'],
  ])('%s → %s', (word, known, expected) => {
    expect(didYouMean(word, known)).toBe(expected);
  });

  it('suggests nothing for a word far from every known name', () => {
    expect(didYouMean('colour', ['approvals', 'terminal', 'web'])).toBeUndefined();
    expect(didYouMean('x', ['approvals'])).toBeUndefined();
  });
});
