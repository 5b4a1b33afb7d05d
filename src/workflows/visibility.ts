// Keeps a run's search attributes and memo in step with its state, so listings read visibility instead of asking
// each run (which needs a live worker). Workflow-safe.
import {
  CancellationScope,
  condition,
  patched,
  upsertMemo,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import type { PendingApproval } from '../common/approval-types.js';
import type { AgentInput, AgentState } from '../common/types.js';
import {
  BATCH_KEY,
  MEMO_KEY,
  MODEL_KEY,
  PARENT_RUN_KEY,
  PENDING_APPROVALS_KEY,
  SCHEDULE_KEY,
  SCHEDULED_BY_KEY,
  STATUS_KEY,
} from '../common/search-attributes.js';
import { runMemo, visibleStatus } from './visibility-memo.js';

/** Runs recorded before this patch never upsert (their histories have no such commands), and still replay. */
const VISIBILITY_PATCH = 'tether-visibility';

/** Runs from this patch on carry their token usage in the memo (`tether list`, the inbox). */
const USAGE_MEMO_PATCH = 'tether-usage-memo';

/** Bounds the keyword list (each id is ~11 characters; the server's search-attribute size limit is far above). */
const MAX_LISTED_IDS = 64;

interface Visibility {
  /** Publishes now (a run about to end has no later activation to do it in). */
  flush(): void;
}

/**
 * Starts publishing, behind a patch: the run's fixed attributes (model, parent, batch, schedule) once, then status,
 * pending approval ids and the memo whenever they change. One general mechanism: a condition re-checked after
 * every activation, so no state change anywhere in the loop needs its own call.
 */
export function publishVisibility(
  input: AgentInput,
  read: () => { state: AgentState; pending: readonly PendingApproval[] },
): Visibility | undefined {
  if (!patched(VISIBILITY_PATCH)) return undefined;
  const withUsage = patched(USAGE_MEMO_PATCH);
  const schedule = workflowInfo().typedSearchAttributes.get(SCHEDULED_BY_KEY);
  const fixed: SearchAttributeUpdatePair[] = [
    { key: MODEL_KEY, value: input.model.slice(0, 200) },
    ...(input.parent ? [{ key: PARENT_RUN_KEY, value: input.parent.workflowId }] : []),
    ...(input.batchId ? [{ key: BATCH_KEY, value: input.batchId }] : []),
    ...(schedule ? [{ key: SCHEDULE_KEY, value: schedule }] : []),
  ];
  const key = (): string => {
    const { state, pending } = read();
    return `${visibleStatus(state, pending)} ${pending.map((p) => p.approvalId).join(',')} ${state.question?.id ?? ''}`;
  };
  let published = '';
  const flush = (): void => {
    const now = key();
    if (now === published) return;
    published = now;
    const { state, pending } = read();
    const memo = runMemo(state, pending, input.task, withUsage);
    upsertSearchAttributes([
      ...fixed.splice(0),
      { key: STATUS_KEY, value: memo.status },
      // An empty list clears the attribute, so `TetherPendingApprovals IS NULL` finds runs with nothing pending.
      {
        key: PENDING_APPROVALS_KEY,
        value: pending.length ? pending.slice(0, MAX_LISTED_IDS).map((p) => p.approvalId) : null,
      },
    ]);
    upsertMemo({ [MEMO_KEY]: memo });
  };
  flush();
  // Outside the run's cancellation: a cancelled run still publishes until it closes, and a wait cancelled under it
  // would be an unhandled rejection that fails the workflow task (a cancel then never completes).
  void CancellationScope.nonCancellable(async () => {
    for (;;) {
      await condition(() => key() !== published);
      flush();
    }
  });
  return { flush };
}
