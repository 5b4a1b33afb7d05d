// The visibility query for a listing of agent runs (`tether list`, `tether approvals`): filters become a
// Temporal list-filter string with every value quoted. Worker-only (pure).
import { RUN_STATUSES, type VisibleStatus } from '../common/search-attribute-names.js';

export interface RunFilter {
  /** A status of RUN_STATUSES, or `open` for every run that has not ended. */
  status?: string;
  batch?: string;
  schedule?: string;
  parent?: string;
}

/** Closed runs are found by how Temporal closed them; the run's own attribute adds what Temporal cannot tell. */
const CLOSED: Partial<Record<VisibleStatus, string>> = {
  completed: "ExecutionStatus = 'Completed' AND (TetherStatus IS NULL OR TetherStatus = 'completed')",
  'limit-reached': "ExecutionStatus = 'Completed' AND TetherStatus = 'limit-reached'",
  failed: "ExecutionStatus = 'Failed'",
  cancelled: "ExecutionStatus = 'Canceled'",
  terminated: "ExecutionStatus = 'Terminated'",
  'timed-out': "ExecutionStatus = 'TimedOut'",
};

export const STATUS_CHOICES: readonly string[] = ['open', ...RUN_STATUSES];

/** A value inside single quotes: a quote or backslash in it cannot end the string. */
export function quoted(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

export function runQuery(f: RunFilter): string {
  // The runs a continue-as-new closed are earlier parts of a run still listed under the same id.
  const parts = ["WorkflowType = 'agentWorkflow'", "ExecutionStatus != 'ContinuedAsNew'"];
  if (f.status === 'open') parts.push("ExecutionStatus = 'Running'");
  else if (f.status !== undefined) {
    if (!STATUS_CHOICES.includes(f.status)) throw new Error(`unknown status '${f.status}'`);
    const closed = CLOSED[f.status as VisibleStatus];
    parts.push(closed ?? `ExecutionStatus = 'Running' AND TetherStatus = ${quoted(f.status)}`);
  }
  if (f.batch !== undefined) parts.push(`TetherBatch = ${quoted(f.batch)}`);
  if (f.schedule !== undefined) parts.push(`TetherSchedule = ${quoted(f.schedule)}`);
  if (f.parent !== undefined) parts.push(`TetherParentRun = ${quoted(f.parent)}`);
  return parts.join(' AND ');
}

/** How a listed run stands: Temporal's own status once closed, the run's attribute while it runs. */
export function rowStatus(temporalStatus: string, attribute: string | undefined): string {
  switch (temporalStatus) {
    case 'RUNNING':
      return attribute ?? 'running';
    case 'COMPLETED':
      return attribute === 'limit-reached' ? 'limit-reached' : 'completed';
    case 'FAILED':
      return 'failed';
    case 'CANCELLED':
      return 'cancelled';
    case 'TERMINATED':
      return 'terminated';
    case 'TIMED_OUT':
      return 'timed-out';
    default:
      return temporalStatus.toLowerCase().replace(/_/g, '-');
  }
}
