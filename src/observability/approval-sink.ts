// The worker's side of the approval sink (src/workflows/approval-telemetry.ts): which approvals this worker's runs
// wait for (tether_approvals_pending) and how long each waited (tether_approval_wait_seconds). Worker-only.
import type { InjectedSinks } from '@temporalio/worker';
import type { ApprovalSinks, ApprovalWait } from '../workflows/approval-telemetry.js';
import { recordApprovalWait, setApprovalsPending } from './metrics.js';

/** approved, denied or timeout: the histogram's `outcome` label. */
export function waitOutcome(w: Pick<ApprovalWait, 'choice' | 'source'>): string {
  if (w.source === 'timeout') return 'timeout';
  return w.choice === 'deny' ? 'denied' : 'approved';
}

/**
 * Pending approvals as this worker saw them asked. An ask whose decision this worker never sees (the run moved to
 * another worker, or was cancelled while it waited) stops counting at its expiry, when it would have been denied.
 */
export class PendingApprovals {
  private readonly pending = new Map<string, number>();
  constructor(private readonly now: () => number = Date.now) {}

  asked(workflowId: string, approvalId: string, expiresAtMs: number): void {
    this.pending.set(`${workflowId}/${approvalId}`, expiresAtMs);
    this.publish();
    // Counted again once it has expired, in case this worker never hears its decision (capped: timers hold 24.8 days).
    const wait = Math.min(Math.max(0, expiresAtMs - this.now()) + 1000, 2 ** 31 - 1);
    setTimeout(() => this.publish(), wait).unref();
  }

  decided(workflowId: string, approvalId: string): void {
    this.pending.delete(`${workflowId}/${approvalId}`);
    this.publish();
  }

  count(): number {
    const now = this.now();
    for (const [key, expires] of this.pending) if (!(expires > now)) this.pending.delete(key);
    return this.pending.size;
  }

  publish(): void {
    setApprovalsPending(this.count());
  }
}

/** This process's: every worker of the process reports to the one gauge. */
export const pendingApprovals = new PendingApprovals();

/** The sink functions the worker injects; they only record metrics, so they are skipped on replay. */
export function approvalSinks(book: PendingApprovals): InjectedSinks<ApprovalSinks> {
  return {
    tetherApprovals: {
      asked: {
        fn: (info, a) => book.asked(info.workflowId, a.approvalId, a.expiresAtMs),
        callDuringReplay: false,
      },
      decided: {
        fn: (info, w) => {
          book.decided(info.workflowId, w.approvalId);
          recordApprovalWait((w.decidedAtMs - w.askedAtMs) / 1000, waitOutcome(w));
        },
        callDuringReplay: false,
      },
    },
  };
}
