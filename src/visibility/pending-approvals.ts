// Every approval waiting for a person, read from visibility (each run's memo), with the runs of older workers that
// publish nothing asked through their state query as before. Worker-only.
import type { Client } from '@temporalio/client';
import type { MemoApproval } from '../common/search-attributes.js';
import { queryRunState } from '../temporal/run-handle.js';
import { memoApproval } from '../workflows/visibility-memo.js';
import { listAllRuns } from './list-runs.js';

export type ListedApproval = MemoApproval & { workflowId: string };

/** Runs started before visibility (no TetherStatus): asked this many at a time, each for at most QUERY_MS. */
const LEGACY_AT_ONCE = 16;
const QUERY_MS = 3_000;

export async function listPendingApprovals(
  client: Client,
): Promise<{ approvals: ListedApproval[]; unanswered: string[] }> {
  const [waiting, legacy] = await Promise.all([
    listAllRuns(client, { status: 'waiting-approval' }),
    listAllRuns(client, {
      query: "WorkflowType = 'agentWorkflow' AND ExecutionStatus = 'Running' AND TetherStatus IS NULL",
    }),
  ]);
  const approvals: ListedApproval[] = [];
  const unanswered: string[] = [];
  for (const run of waiting) {
    // The memo and the ids arrive in one update; a memo that is missing or shorter is still named by its ids.
    const described = new Set(run.memo?.approvals.map((a) => a.approvalId));
    for (const a of run.memo?.approvals ?? []) approvals.push({ ...a, workflowId: run.workflowId });
    if (run.pendingApprovals.some((id) => !described.has(id))) unanswered.push(run.workflowId);
  }
  for (let i = 0; i < legacy.length; i += LEGACY_AT_ONCE) {
    await Promise.all(
      legacy.slice(i, i + LEGACY_AT_ONCE).map(async (run) => {
        const state = await queryRunState(client, client.workflow.getHandle(run.workflowId), QUERY_MS);
        if (!state) unanswered.push(run.workflowId);
        // Shown as the memo shows it: bounded and redacted like every listing.
        for (const p of state?.pendingApprovals ?? [])
          approvals.push({ ...memoApproval(p), workflowId: run.workflowId });
      }),
    );
  }
  return { approvals, unanswered };
}
