// Tether's search attribute names and types, the run statuses and the visibility memo's shape, as plain values: no
// Temporal import, so the CLI's quick listings can read them without the SDK. Workflow-safe (definitions only).
import type { ApprovalFinding } from './approval-types.js';

/** Where a run is, as `tether list --status` filters it. Closed runs also say how they ended. */
export const RUN_STATUSES = [
  'running',
  'waiting-approval',
  'waiting-answer',
  'waiting-message',
  'waiting-subagents',
  'completed',
  'limit-reached',
  'failed',
  'cancelled',
  'terminated',
  'timed-out',
] as const;
export type VisibleStatus = (typeof RUN_STATUSES)[number];

/** Tether's search attributes: name and Temporal type (`tether cluster setup`, the dev server's flags). */
export const ATTRIBUTES = {
  status: { name: 'TetherStatus', type: 'KEYWORD' },
  pendingApprovals: { name: 'TetherPendingApprovals', type: 'KEYWORD_LIST' },
  model: { name: 'TetherModel', type: 'KEYWORD' },
  parentRun: { name: 'TetherParentRun', type: 'KEYWORD' },
  batch: { name: 'TetherBatch', type: 'KEYWORD' },
  schedule: { name: 'TetherSchedule', type: 'KEYWORD' },
} as const;

/** The memo key a run's visibility memo lives under. */
export const MEMO_KEY = 'tether';

/** What a person needs to decide one pending approval, bounded and with secrets hidden. */
export interface MemoApproval {
  approvalId: string;
  callId: string;
  tool: string;
  /** The command as shown: control and invisible characters escaped, secrets redacted, at most MEMO_COMMAND_CHARS. */
  command: string;
  /** The command was cut to fit; `tether status` (with a worker) shows it whole. */
  shortened?: boolean;
  /** Something that looked like a secret was replaced by [REDACTED ...]. */
  redacted?: boolean;
  /** The command held control or invisible characters (shown as escapes). */
  hidden?: boolean;
  findings: ApprovalFinding[];
  argsDigest: string;
  askedAt: string;
  expiresAt: string;
}

export interface RunMemo {
  v: 1;
  status: VisibleStatus;
  /** The start of the task, redacted. */
  task?: string;
  approvals: MemoApproval[];
  /** Pending approvals beyond those in `approvals` (the memo keeps a bounded number). */
  moreApprovals?: number;
  question?: { id: string; text: string; askedAt: string; expiresAt: string };
}

/** The type's name as Temporal's CLI and UI spell it (`--search-attribute TetherStatus=Keyword`). */
export function attributeTypeName(type: string): string {
  return type
    .toLowerCase()
    .split('_')
    .map((w) => `${w.charAt(0).toUpperCase()}${w.slice(1)}`)
    .join('');
}
