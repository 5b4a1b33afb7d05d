// The approval notice (approvals.webhook_url): sent for every pending approval and retried with backoff, by the
// Temporal server, until the endpoint answers 2xx, across worker restarts, for as long as the approval is pending;
// the run's state says whether it was delivered. Workflow-safe.
import { CancellationScope, isCancellation, log, patched, proxyActivities } from '@temporalio/workflow';
import type { AgentActivities } from '../common/activity-contract.js';
import { noticeActivityId, type ApprovalNotice, type PendingApproval } from '../common/approval-types.js';

/**
 * Added when the notice began to be retried until delivered (and stopped once decided); runs recorded before sent it
 * best effort, five tries at most.
 */
const NOTICE_PATCH = 'approval-notice-until-delivered';

/** Runs recorded before the patch. */
const bestEffort = proxyActivities<AgentActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 5 },
  summary: 'approval',
});

function deliveries(approvalId: string): AgentActivities {
  return proxyActivities<AgentActivities>({
    activityId: noticeActivityId(approvalId),
    // One POST waits at most 10 s (src/activities/approvals.ts); a worker lost during one is noticed by this.
    startToCloseTimeout: '20 seconds',
    // No attempt limit: the approval's own expiry (or its decision) ends the tries.
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '20 seconds' },
    summary: 'approval notice',
  });
}

export class ApprovalNotices {
  /** Each pending approval's notice, while it is pending. */
  readonly byApproval: Record<string, ApprovalNotice> = {};
  private readonly sending = new Map<string, CancellationScope>();

  /** Starts delivering the notice of `pending`, until it is delivered or `stop` is called. */
  send(pending: PendingApproval): void {
    if (!patched(NOTICE_PATCH)) {
      // Best effort: a webhook that is down must not stop the person deciding by other means.
      bestEffort
        .notifyApproval({ approval: pending })
        .catch((err: unknown) => log.warn('approval webhook failed', { error: String(err) }));
      return;
    }
    const id = pending.approvalId;
    this.byApproval[id] = { state: 'sending', since: new Date().toISOString() };
    const scope = new CancellationScope();
    this.sending.set(id, scope);
    void scope
      .run(() => deliveries(id).notifyApproval({ approval: pending }))
      .then(
        (out) => {
          if (!(id in this.byApproval)) return;
          const at = new Date().toISOString();
          this.byApproval[id] =
            out && !out.delivered
              ? { state: 'not-sent', at, detail: out.reason }
              : { state: 'delivered', at, ...(out?.status ? { detail: `HTTP ${out.status}` } : {}) };
        },
        (err: unknown) => {
          // Stopped because the approval left the pending list: nothing to record.
          if (isCancellation(err) || !(id in this.byApproval)) return;
          this.byApproval[id] = { state: 'not-sent', at: new Date().toISOString(), detail: String(err) };
        },
      )
      .finally(() => this.sending.delete(id));
  }

  /** The approval was decided, expired or withdrawn: no more tries, and its notice leaves the state. */
  stop(approvalId: string): void {
    this.sending.get(approvalId)?.cancel();
    this.sending.delete(approvalId);
    delete this.byApproval[approvalId];
  }
}
