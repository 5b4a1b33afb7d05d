// What `tether status` says of a pending approval's notice (approvals.webhook_url): delivered, or how its tries
// are going, from the run's state and the notice activity's attempts. Client-side (no worker code).
import type { ApprovalNotice } from '../common/approval-types.js';
import { noticeActivityId } from '../common/approval-types.js';

/** The tries of one notice so far, as the server reports its pending activity. */
export interface NoticeTries {
  attempt: number;
  lastFailure?: string;
  nextTryAt?: string;
}

interface PendingActivityLike {
  activityId?: string | null;
  attempt?: number | null;
  lastFailure?: { message?: string | null } | null;
  nextAttemptScheduleTime?: { seconds?: unknown; nanos?: number | null } | null;
}

const time = (t: PendingActivityLike['nextAttemptScheduleTime']): string | undefined =>
  t?.seconds === undefined || t.seconds === null
    ? undefined
    : new Date(Number(t.seconds) * 1000 + Math.floor((t.nanos ?? 0) / 1e6)).toISOString();

/** The tries of each notice still being sent, by approval id, from a run's pending activities. */
export function noticeTries(pending: readonly PendingActivityLike[] | null | undefined): Record<string, NoticeTries> {
  const out: Record<string, NoticeTries> = {};
  for (const a of pending ?? []) {
    const id = a.activityId ?? '';
    const approvalId = id.startsWith(noticeActivityId('')) ? id.slice(noticeActivityId('').length) : undefined;
    if (!approvalId) continue;
    const next = time(a.nextAttemptScheduleTime);
    out[approvalId] = {
      attempt: a.attempt ?? 1,
      ...(a.lastFailure?.message ? { lastFailure: a.lastFailure.message } : {}),
      ...(next ? { nextTryAt: next } : {}),
    };
  }
  return out;
}

/** One line for a pending approval's notice, or undefined when none is sent (no webhook configured). */
export function noticeLine(notice: ApprovalNotice | undefined, tries: NoticeTries | undefined): string | undefined {
  if (!notice) return undefined;
  if (notice.state === 'delivered')
    return `notice: delivered ${notice.at ?? ''}${notice.detail ? ` (${notice.detail})` : ''}`;
  if (notice.state === 'not-sent') return `notice: not sent: ${notice.detail ?? 'unknown reason'}`;
  const failed =
    tries && tries.attempt > 1 ? `; ${tries.attempt - 1} tries failed, the last: ${tries.lastFailure ?? '?'}` : '';
  const next = tries?.nextTryAt ? `; next try ${tries.nextTryAt}` : '';
  return `notice: not delivered yet (sending since ${notice.since ?? '?'}${failed}${next})`;
}
