// State every worker of a deployment shares, on the dev server with real `tether worker` processes: a note written by
// a run on one host is read by a later run on another through `memory` and found by `session_search`; a write is
// applied once per operation id whichever worker sends it; with `store.shared: false` each host keeps its own.
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { describe, expect, inject, it } from 'vitest';
import {
  journalSegmentId,
  MEMORY_BOOK_WORKFLOW,
  MEMORY_NOTES_QUERY,
  memoryBookId,
} from '../src/common/shared-store-names.js';
import { recordHistory } from './support/history.js';
import type { MemoryNote } from '../src/common/memory-notes.js';
import { sharedMemoryOp } from '../src/store/shared-memory.js';
import { syncJournal } from '../src/store/session-journal.js';
import { Store } from '../src/store/store.js';
import { host, twoHosts } from './support/shared-store-scenario.js';
import { workerProcessSuite } from './support/worker-process.js';

const { client, workers, models } = workerProcessSuite();

describe('state every worker of a deployment shares', () => {
  it('a note written by a run on one host is read by a later run on another, and found by session_search', async () => {
    const r = await twoHosts(client(), workers, models);
    expect(r.read.notes).toContain(r.note);
    const hits = r.found.results.filter((x) => x.run === r.firstRun);
    // The memory call (the assistant's turn) and the answer, read from journal segments the other host wrote.
    expect(hits.map((x) => x.role)).toEqual(expect.arrayContaining(['assistant']));
    expect(hits.some((x) => x.snippet.includes(`[${r.word}]`))).toBe(true);
    expect(r.found.note).toBeUndefined();
    // A third store reads the journal as a new worker would: nothing past its deadline, then everything.
    const store = new Store(join(mkdtempSync(join(tmpdir(), 'tether-reader-')), 'tether.sqlite'));
    try {
      expect(await syncJournal(client(), r.taskQueue, store, Date.now())).toEqual({ changed: 0, complete: false });
      const read = await syncJournal(client(), r.taskQueue, store);
      expect(read.complete).toBe(true);
      expect(read.changed).toBeGreaterThan(0);
      expect(store.search(r.word, 10).map((x) => x.workflowId)).toContain(r.firstRun);
      expect(store.journalCursor(r.taskQueue).segment).toBeGreaterThanOrEqual(3);
    } finally {
      store.close();
    }
    recordHistory(inject('temporalAddress'), memoryBookId(r.taskQueue), 'memory-book');
    // The first segment, started to seal after one append: the rest of the run went on in later ones.
    recordHistory(inject('temporalAddress'), journalSegmentId(r.taskQueue, 0), 'session-journal');
  }, 300_000);

  it('with store.shared off, each host keeps its own memory and transcripts, as before', async () => {
    const r = await twoHosts(client(), workers, models, 'store:\n  shared: false\n');
    expect(r.read.notes).not.toContain(r.note);
    expect(r.found.results.filter((x) => x.run === r.firstRun)).toEqual([]);
  }, 300_000);

  it('applies a write once per operation id, whichever worker sends it, and after the book continued as new', async () => {
    const taskQueue = `dedup-${randomUUID()}`;
    const h = await host(taskQueue, []);
    models.push(h.model);
    await workers.start(h.env);
    // Two workers' clients (two connections) send the same operation at once, then again.
    const connections = await Promise.all([1, 2].map(() => Connection.connect({ address: inject('temporalAddress') })));
    try {
      const clients = connections.map((connection) => new Client({ connection }));
      const seed = () => ({ notes: [], nextId: 1 });
      const op = { action: 'add' as const, content: `a note ${randomUUID()}` };
      const answers = await Promise.all(clients.map((c) => sharedMemoryOp(c, taskQueue, 'run-1/first/7', op, seed)));
      expect(answers[0]).toBe(answers[1]);
      await sharedMemoryOp(clients[1]!, taskQueue, 'run-1/first/7', op, seed);
      // The same content under a new operation id is a new write (memory says it has it already, and adds nothing).
      await sharedMemoryOp(clients[0]!, taskQueue, 'run-1/first/8', { action: 'add', content: 'another' }, seed);
      const notes = await clients[0]!.workflow
        .getHandle(memoryBookId(taskQueue))
        .query<MemoryNote[]>(MEMORY_NOTES_QUERY);
      expect(notes.map((n) => n.content)).toEqual([op.content, 'another']);

      // A book that continued as new carries what it applied: a late retry of an old operation changes nothing.
      const carriedQueue = `dedup-carried-${randomUUID()}`;
      const carried = await host(carriedQueue, []);
      models.push(carried.model);
      await workers.start(carried.env);
      await clients[0]!.workflow.start(MEMORY_BOOK_WORKFLOW, {
        taskQueue: carriedQueue,
        workflowId: memoryBookId(carriedQueue),
        args: [
          {
            notes: [{ id: 1, content: 'kept', created: 'then' }],
            nextId: 2,
            applied: [['op-old', 'the first answer']],
          },
        ],
      });
      const late = await sharedMemoryOp(
        clients[1]!,
        carriedQueue,
        'op-old',
        { action: 'remove', old_text: 'kept' },
        seed,
      );
      expect(late).toBe('the first answer');
      const after = await clients[1]!.workflow
        .getHandle(memoryBookId(carriedQueue))
        .query<MemoryNote[]>(MEMORY_NOTES_QUERY);
      expect(after.map((n) => n.content)).toEqual(['kept']);
    } finally {
      for (const c of connections) await c.close();
    }
  }, 300_000);
});
