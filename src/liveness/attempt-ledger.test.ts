// The attempt ledger: what a retry reaching a worker does, given what that worker knows of the call's earlier attempts.
import { describe, expect, it } from 'vitest';
import { AttemptLedger, type Settled } from './attempt-ledger.js';

function deferred(): { promise: Promise<Settled>; resolve: (s: Settled) => void } {
  let resolve!: (s: Settled) => void;
  const promise = new Promise<Settled>((r) => (resolve = r));
  return { promise, resolve };
}

describe('AttemptLedger', () => {
  it('a first attempt runs; nothing is known of earlier ones', async () => {
    expect(await new AttemptLedger().start('k', 1)).toEqual({ kind: 'run', earlierNeverRan: false });
  });

  it('a retry finding its earlier attempt running here takes over its outcome, and tells it so', async () => {
    const ledger = new AttemptLedger();
    await ledger.start('k', 1);
    const first = deferred();
    let adopted = false;
    ledger.running('k', { attempt: 1, outcome: first.promise, adopted: false, onAdopted: () => (adopted = true) });
    const second = await ledger.start('k', 2);
    expect(second.kind).toBe('adopt');
    expect(adopted).toBe(true);
    first.resolve({ ok: true, value: 'ran once' });
    expect(await (second as { outcome: Promise<Settled> }).outcome).toEqual({ ok: true, value: 'ran once' });
  });

  it('a retry arriving after its earlier attempt finished here gets its value (its completion came too late)', async () => {
    const ledger = new AttemptLedger();
    await ledger.start('k', 1);
    ledger.running('k', { attempt: 1, outcome: Promise.resolve({ ok: true, value: 'ran once' }), adopted: false });
    await Promise.resolve();
    const second = await ledger.start('k', 2);
    expect(second.kind).toBe('adopt');
    expect(await (second as { outcome: Promise<Settled> }).outcome).toEqual({ ok: true, value: 'ran once' });
  });

  it('a retry after an earlier attempt failed here runs the call again, unless that failure was final', async () => {
    const ledger = new AttemptLedger();
    await ledger.start('k', 1);
    ledger.running('k', {
      attempt: 1,
      outcome: Promise.resolve({ ok: false, error: new Error('503') }),
      adopted: false,
    });
    await Promise.resolve();
    expect(await ledger.start('k', 2)).toEqual({ kind: 'run', earlierNeverRan: false });
    const final = { nonRetryable: true, message: 'bad request' };
    ledger.running('k', { attempt: 2, outcome: Promise.resolve({ ok: false, error: final }), adopted: false });
    await Promise.resolve();
    const third = await ledger.start('k', 3);
    expect(third.kind).toBe('adopt');
    expect(await (third as { outcome: Promise<Settled> }).outcome).toEqual({ ok: false, error: final });
  });

  it('an earlier attempt that reaches the worker after a later one runs nothing, and the later one knows it', async () => {
    const ledger = new AttemptLedger();
    // The retry arrives first and, its predecessor having left no trace, waits for it a little.
    const second = ledger.start('k', 2, 5_000);
    expect(await ledger.start('k', 1)).toEqual({ kind: 'refuse' });
    expect(await second).toEqual({ kind: 'run', earlierNeverRan: true });
    expect(ledger.superseded('k', 1)).toBe(true);
  });

  it('a retry that waited in vain runs, without claiming its predecessor never ran', async () => {
    const ledger = new AttemptLedger();
    expect(await ledger.start('k', 2, 20)).toEqual({ kind: 'run', earlierNeverRan: false });
  });

  it('an attempt the server gave up before it began is refused; its retry runs as the first to run the call', async () => {
    const ledger = new AttemptLedger();
    ledger.refuse('k', 1);
    expect(await ledger.start('k', 2)).toEqual({ kind: 'run', earlierNeverRan: true });
    // Attempt 3 after a refused 1 and an unknown 2: 2 may have run.
    const other = new AttemptLedger();
    other.refuse('j', 1);
    expect(await other.start('j', 3)).toEqual({ kind: 'run', earlierNeverRan: false });
  });

  it('forgets finished calls after five minutes', async () => {
    let now = 0;
    const ledger = new AttemptLedger(() => now);
    await ledger.start('old', 1);
    ledger.running('old', { attempt: 1, outcome: Promise.resolve({ ok: true, value: 1 }), adopted: false });
    await Promise.resolve();
    now = 6 * 60_000;
    await ledger.start('new', 1);
    ledger.running('new', { attempt: 1, outcome: Promise.resolve({ ok: true, value: 2 }), adopted: false });
    await new Promise((r) => setTimeout(r, 0));
    expect(ledger.size).toBe(1);
    expect((await ledger.start('old', 2)).kind).toBe('run');
  });
});
