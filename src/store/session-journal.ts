// The deployment's session journal, from a worker: append the transcript entries this worker records, and read what
// every other worker appended into this worker's own search index before a search. Segments are the workflows of
// src/workflows/session-journal.ts; this store remembers where it appends and how far it has read. Worker-only.
import { createHash } from 'node:crypto';
import { WithStartWorkflowOperation, WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Payload, Workflow } from '@temporalio/common';
import {
  JOURNAL_APPEND_UPDATE,
  JOURNAL_SEALED,
  SESSION_JOURNAL_WORKFLOW,
  journalSegmentId,
  type JournalBatch,
} from '../common/shared-store-names.js';
import type { Store } from './store.js';

/** A repeat of the same batch (a retried activity) is the same update id: the segment records it once. */
function batchId(batch: JournalBatch): string {
  const h = createHash('sha256').update(batch.workflowId);
  for (const e of batch.entries) h.update(`\0${e.seq}\0${e.role}\0${e.content}`);
  return `journal-${h.digest('hex').slice(0, 32)}`;
}

const sealedError = (err: unknown): boolean => {
  for (let e = err as { message?: string; cause?: unknown } | undefined; e; e = e.cause as typeof e)
    if (typeof e.message === 'string' && e.message.includes(JOURNAL_SEALED)) return true;
  return false;
};

/** Deployments whose head segment this process has looked up (by describing segments, which needs no worker). */
const walked = new Set<string>();

/**
 * The segment to append to: where this store last appended (or read up to), then on past every segment that has a
 * successor, since only the last can be open. Done once per process and after a refusal, by describe calls: trying
 * sealed segments one by one would make a worker replay each of them to refuse.
 */
async function headSegment(client: Client, taskQueue: string, store: Store): Promise<number> {
  const cursor = store.journalCursor(taskQueue);
  let n = Math.max(cursor.head, cursor.segment);
  if (walked.has(taskQueue)) return n;
  while ((await exists(client, journalSegmentId(taskQueue, n + 1))) !== undefined) n += 1;
  walked.add(taskQueue);
  return n;
}

/** Appends `batch` to the journal's open segment, going on past sealed ones. */
export async function appendToJournal(
  client: Client,
  taskQueue: string,
  store: Store,
  batch: JournalBatch,
): Promise<void> {
  if (batch.entries.length === 0) return;
  const updateId = batchId(batch);
  for (let n = await headSegment(client, taskQueue, store); ; n += 1) {
    try {
      await client.workflow.executeUpdateWithStart<Workflow, number, [JournalBatch]>(JOURNAL_APPEND_UPDATE, {
        args: [batch],
        updateId,
        startWorkflowOperation: new WithStartWorkflowOperation(SESSION_JOURNAL_WORKFLOW, {
          workflowId: journalSegmentId(taskQueue, n),
          taskQueue,
          args: [{}],
          workflowIdConflictPolicy: 'USE_EXISTING',
        }),
      });
      if (n !== store.journalCursor(taskQueue).head) store.setJournalCursor(taskQueue, { head: n });
      return;
    } catch (err) {
      if (!sealedError(err)) throw err;
      walked.delete(taskQueue);
    }
  }
}

interface HistoryEvent {
  workflowExecutionUpdateAcceptedEventAttributes?: {
    acceptedRequest?: { input?: { name?: string | null; args?: { payloads?: Payload[] | null } | null } | null } | null;
  } | null;
}

/** The first argument of an update as the client's data converter reads it (its codecs undone first). */
async function firstArg(client: Client, payloads: Payload[]): Promise<unknown> {
  const { payloadCodecs, payloadConverter } = client.options.loadedDataConverter;
  let decoded = payloads;
  for (const codec of [...payloadCodecs].reverse()) decoded = await codec.decode(decoded);
  return decoded[0] ? payloadConverter.fromPayload(decoded[0]) : undefined;
}

/** The workflow's history length, or undefined when there is no such workflow. */
function exists(client: Client, workflowId: string): Promise<number | undefined> {
  return client.workflow
    .getHandle(workflowId)
    .describe()
    .then(
      (d) => d.historyLength,
      (err: unknown) => {
        if (err instanceof WorkflowNotFoundError) return undefined;
        throw err;
      },
    );
}

/** How long one search reads the journal before it searches what it has. */
const SYNC_MS = 20_000;

/**
 * Reads the segments this store has not read whole into its transcripts. A segment is whole once the next one exists
 * (writers go on only past a sealed one), so that is asked first: what is read of it after that is all it will hold.
 * Returns how many entries changed the index, and whether it read everything before `deadline`.
 */
export async function syncJournal(
  client: Client,
  taskQueue: string,
  store: Store,
  deadline = Date.now() + SYNC_MS,
): Promise<{ changed: number; complete: boolean }> {
  let { segment, events } = store.journalCursor(taskQueue);
  let changed = 0;
  for (;;) {
    // A worker new to a large deployment reads a few segments per search, not all of them before the first answer.
    if (Date.now() >= deadline) return { changed, complete: false };
    const sealed = (await exists(client, journalSegmentId(taskQueue, segment + 1))) !== undefined;
    const length = await exists(client, journalSegmentId(taskQueue, segment));
    if (length === undefined) break;
    if (length > events) {
      const history = await client.workflow.getHandle(journalSegmentId(taskQueue, segment)).fetchHistory();
      const all = (history.events ?? []) as HistoryEvent[];
      for (const e of all.slice(events)) {
        const req = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input;
        if (req?.name !== JOURNAL_APPEND_UPDATE || !req.args?.payloads) continue;
        const batch = (await firstArg(client, req.args.payloads)) as JournalBatch | undefined;
        if (batch && typeof batch.workflowId === 'string' && Array.isArray(batch.entries))
          changed += store.record(batch.workflowId, batch.entries);
      }
      events = all.length;
    }
    if (!sealed) break;
    segment += 1;
    events = 0;
    store.setJournalCursor(taskQueue, { segment, events });
  }
  store.setJournalCursor(taskQueue, { segment, events });
  return { changed, complete: true };
}
