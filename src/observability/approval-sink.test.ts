// The pending-approvals count of one worker: asks and decisions by run and approval id, expiry when no decision comes.
import { describe, expect, it } from 'vitest';
import { PendingApprovals, waitOutcome } from './approval-sink.js';

describe('PendingApprovals', () => {
  it('counts asks until they are decided or expire', () => {
    let now = 1_000;
    const book = new PendingApprovals(() => now);
    book.asked('run-a', 'ap-1', 5_000);
    book.asked('run-a', 'ap-2', 60_000);
    book.asked('run-b', 'ap-1', 60_000); // same approval id in another run: another approval
    expect(book.count()).toBe(3);
    book.decided('run-a', 'ap-2');
    book.decided('run-c', 'ap-9'); // a decision this worker never saw asked: nothing to take away
    expect(book.count()).toBe(2);
    now = 5_000; // ap-1 of run-a timed out (its decision went to another worker, or the run was cancelled)
    expect(book.count()).toBe(1);
  });
});

describe('waitOutcome', () => {
  it('is approved, denied or timeout', () => {
    expect(waitOutcome({ choice: 'once', source: 'person' })).toBe('approved');
    expect(waitOutcome({ choice: 'always', source: 'person' })).toBe('approved');
    expect(waitOutcome({ choice: 'deny', source: 'person' })).toBe('denied');
    expect(waitOutcome({ choice: 'deny', source: 'timeout' })).toBe('timeout');
  });
});
