// Tether's search attribute names and types, the run statuses and the visibility memo's shape, as plain values: no
// Temporal import, so the CLI's quick listings can read them without the SDK. Workflow-safe (definitions only).
import type { ApprovalFinding } from './approval-types.js';
import type { TokenUsage } from './types.js';

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
  /**
   * The command as shown (src/approval/approval-text.ts): control, invisible and look-alike characters escaped,
   * long blank runs counted, secret values a marked span, at most MEMO_LIMITS.commandChars.
   */
  command: string;
  /** The command was cut to fit; the run's state (`tether approvals --exact`, the inbox) shows it whole. */
  shortened?: boolean;
  /** The whole command's length in characters, when shortened. */
  chars?: number;
  /** Something that looked like a secret is shown as a ⟨redacted⟩ span. */
  redacted?: boolean;
  /** The command (or a file it reads) held characters that could deceive (shown as escapes; never just tabs). */
  hidden?: boolean;
  /** Long runs of spaces or blank lines are shown as a count. */
  collapsed?: boolean;
  findings: ApprovalFinding[];
  argsDigest: string;
  askedAt: string;
  expiresAt: string;
  /** Where it runs. */
  cwd?: string;
  /** Files that changed after an earlier verdict on this call (their new content is what is shown). */
  changed?: string[];
  /** The files the gate read to judge it, by name and size (their content is in the run's state, not here). */
  reads?: { path: string; lines: number; chars: number }[];
  /** What a wider approval would cover (see ApprovalScope). */
  scope?: { covers: string; onceOnly?: string; always?: true; alwaysNot?: string };
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
  /** Tokens the run used, as of its last status change (final once it ended); absent from runs before it was kept. */
  usage?: TokenUsage;
}

/** The type's name as Temporal's CLI and UI spell it (`--search-attribute TetherStatus=Keyword`). */
export function attributeTypeName(type: string): string {
  return type
    .toLowerCase()
    .split('_')
    .map((w) => `${w.charAt(0).toUpperCase()}${w.slice(1)}`)
    .join('');
}
