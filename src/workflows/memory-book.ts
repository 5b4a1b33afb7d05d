// The deployment's shared memory: one long-lived workflow per task queue holds the notes every worker reads and
// writes. A write is an update whose id is the memory tool call's operation id, so a retried or repeated write
// applies once whichever worker sends it; a read is a query and records nothing. Workflow-safe.
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  defineQuery,
  defineUpdate,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { applyMemoryOp, type MemoryNote } from '../common/memory-notes.js';
import {
  MEMORY_NOTES_QUERY,
  MEMORY_UPDATE,
  type MemoryBookInput,
  type MemoryOperation,
} from '../common/shared-store-names.js';

export const memoryUpdate = defineUpdate<string, [string, MemoryOperation]>(MEMORY_UPDATE);
export const memoryNotesQuery = defineQuery<MemoryNote[]>(MEMORY_NOTES_QUERY);

/** Operations remembered with their results: a repeat of any of them gets the first result back. */
const REMEMBERED_OPS = 2_000;
/** The book continues as new well before its history gets long: each run replays in milliseconds. */
const EVENTS_PER_RUN = 2_000;

export async function memoryBook(input: MemoryBookInput): Promise<void> {
  let notes = input.notes;
  let nextId = input.nextId;
  const applied = new Map<string, string>(input.applied ?? []);
  setHandler(memoryNotesQuery, () => notes);
  setHandler(
    memoryUpdate,
    (opId, op) => {
      const before = applied.get(opId);
      if (before !== undefined) return before;
      const outcome = applyMemoryOp(notes, op, { id: nextId, at: op.at });
      if (outcome.notes !== notes && outcome.notes.some((n) => n.id === nextId)) nextId += 1;
      notes = outcome.notes;
      if (op.action !== 'read') {
        applied.set(opId, outcome.result);
        if (applied.size > REMEMBERED_OPS) applied.delete(applied.keys().next().value!);
      }
      return outcome.result;
    },
    {
      validator: (opId, op) => {
        if (typeof opId !== 'string' || opId === '' || typeof op?.action !== 'string' || typeof op.at !== 'string')
          throw new TypeError('a memory operation needs an operation id, an action and a time');
      },
    },
  );
  await condition(() => workflowInfo().continueAsNewSuggested || workflowInfo().historyLength > EVENTS_PER_RUN);
  // Updates being applied finish first; those arriving later go to the next run, where `applied` still knows them.
  await condition(allHandlersFinished);
  await continueAsNew<typeof memoryBook>({ notes, nextId, applied: [...applied] });
}
