// The search attributes and memo an agent run keeps up to date for visibility listings (`tether list`, `tether
// approvals`, the gateway): typed keys over the names in search-attribute-names.ts. Workflow-safe (definitions only).
import { defineSearchAttributeKey } from '@temporalio/common';
import { ATTRIBUTES } from './search-attribute-names.js';

export {
  ATTRIBUTES,
  attributeTypeName,
  MEMO_KEY,
  RUN_STATUSES,
  type MemoApproval,
  type RunMemo,
  type VisibleStatus,
} from './search-attribute-names.js';

export const STATUS_KEY = defineSearchAttributeKey(ATTRIBUTES.status.name, ATTRIBUTES.status.type);
export const PENDING_APPROVALS_KEY = defineSearchAttributeKey(
  ATTRIBUTES.pendingApprovals.name,
  ATTRIBUTES.pendingApprovals.type,
);
export const MODEL_KEY = defineSearchAttributeKey(ATTRIBUTES.model.name, ATTRIBUTES.model.type);
export const PARENT_RUN_KEY = defineSearchAttributeKey(ATTRIBUTES.parentRun.name, ATTRIBUTES.parentRun.type);
export const BATCH_KEY = defineSearchAttributeKey(ATTRIBUTES.batch.name, ATTRIBUTES.batch.type);
export const SCHEDULE_KEY = defineSearchAttributeKey(ATTRIBUTES.schedule.name, ATTRIBUTES.schedule.type);
/** Set by the server on every run a schedule starts. */
export const SCHEDULED_BY_KEY = defineSearchAttributeKey('TemporalScheduledById', 'KEYWORD');

/** Every attribute tether needs registered on the namespace (`tether cluster setup`, the dev server's flags). */
export const TETHER_SEARCH_ATTRIBUTES = [
  STATUS_KEY,
  PENDING_APPROVALS_KEY,
  MODEL_KEY,
  PARENT_RUN_KEY,
  BATCH_KEY,
  SCHEDULE_KEY,
] as const;
