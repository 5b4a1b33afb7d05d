// A payload too large to record inline, kept by the Temporal server itself: its bytes arrive as chunk signals (each
// well under the payload limit) and stay in this workflow's history, where any worker or client reads them back
// (src/payloads/blob-driver.ts). It lives as long as the run whose history refers to it. Workflow-safe.
import { condition, defineSignal, proxyActivities, setHandler, sleep } from '@temporalio/workflow';
import { BLOB_CHUNK_SIGNAL, type PayloadBlobInput } from '../common/shared-store-names.js';
import type { StoreActivities } from '../common/activity-contract.js';

export const blobChunkSignal = defineSignal<[number, Uint8Array]>(BLOB_CHUNK_SIGNAL);

const store = proxyActivities<StoreActivities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumInterval: '1 hour' },
});

/** How often a blob asks whether its owner still exists. */
const OWNER_CHECK = '1 day';

export async function payloadBlob(input: PayloadBlobInput): Promise<void> {
  // The chunks are read from history; the workflow only needs to accept them.
  setHandler(blobChunkSignal, () => undefined);
  if (!input.owner) {
    // Whose history holds it is not known (an activity's result): kept until removed by hand.
    await condition(() => false);
    return;
  }
  for (;;) {
    await sleep(OWNER_CHECK);
    // Gone only when no run of the owner's chain is left: a closed run's history is kept for the retention period.
    if (!(await store.runExists({ workflowId: input.owner }))) return;
  }
}
