// One segment of the deployment's session journal: every worker appends the transcript entries it records, and any
// worker reads them back from the segment's history into its own search index. A segment seals itself once it holds
// enough (a sealed one refuses appends without recording them, and the writer goes on to the next); it never ends,
// so retention never deletes it. Workflow-safe.
import { condition, defineQuery, defineUpdate, setHandler } from '@temporalio/workflow';
import {
  JOURNAL_APPEND_UPDATE,
  JOURNAL_SEALED,
  type JournalBatch,
  type JournalSegmentInput,
} from '../common/shared-store-names.js';
import { jsonBytes } from './payload-limits.js';

export const journalAppendUpdate = defineUpdate<number, [JournalBatch]>(JOURNAL_APPEND_UPDATE);
export const journalSealedQuery = defineQuery<boolean>('sealed');

/** A segment's history stays far below Temporal's limits (50 000 events, 50 MB): reading one back is quick. */
const SEAL_AFTER_BYTES = 4 * 1024 * 1024;
const SEAL_AFTER_APPENDS = 1_000;

export async function sessionJournal(input: JournalSegmentInput = {}): Promise<void> {
  const limit = input.sealAfterBytes ?? SEAL_AFTER_BYTES;
  let bytes = 0;
  let appends = 0;
  const sealed = (): boolean => bytes >= limit || appends >= SEAL_AFTER_APPENDS;
  setHandler(journalSealedQuery, sealed);
  setHandler(
    journalAppendUpdate,
    (batch) => {
      bytes += jsonBytes(batch);
      appends += 1;
      return appends;
    },
    {
      validator: (batch) => {
        // Refused in the validator, so nothing of it is recorded in a sealed segment.
        if (sealed()) throw new Error(JOURNAL_SEALED);
        if (typeof batch?.workflowId !== 'string' || !Array.isArray(batch.entries))
          throw new TypeError('a journal batch needs a workflow id and entries');
      },
    },
  );
  // Kept open: a closed workflow's history is deleted after the namespace's retention, and with it past sessions.
  await condition(() => false);
}
