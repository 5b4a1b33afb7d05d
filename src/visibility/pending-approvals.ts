// Every approval waiting for a person, read from visibility (each run's memo), with the runs of older workers that
// publish nothing asked through their state query as before. Worker-only.
import type { Client } from '@temporalio/client';
import type { MemoApproval } from '../common/search-attribute-names.js';
import { listAllRuns } from './list-runs.js';
import { readerOf, type RunReader } from '../temporal/run-reader.js';

export type ListedApproval = MemoApproval & { workflowId: string };

/** Runs started before visibility (no TetherStatus): asked this many at a time, each for at most QUERY_MS. */
const LEGACY_AT_ONCE = 16;
const QUERY_MS = 3_000;

export async function listPendingApprovals(
  source: Client | RunReader,
): Promise<{ approvals: ListedApproval[]; unanswered: string[] }> {
  const reader = await readerOf(source);
  const [waiting, legacy] = await Promise.all([
    listAllRuns(reader, { status: 'waiting-approval' }),
    listAllRuns(reader, {
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
  // Imported only for such runs: it brings the approval text renderer, which a plain listing does not need.
  const { memoApproval } =
    legacy.length > 0 ? await import('../workflows/visibility-memo.js') : { memoApproval: undefined };
  for (let i = 0; i < legacy.length; i += LEGACY_AT_ONCE) {
    await Promise.all(
      legacy.slice(i, i + LEGACY_AT_ONCE).map(async (run) => {
        const state = await reader.queryState(run.workflowId, QUERY_MS);
        if (!state) unanswered.push(run.workflowId);
        // Shown as the memo shows it: bounded and redacted like every listing.
        for (const p of state?.pendingApprovals ?? [])
          approvals.push({ ...memoApproval!(p), workflowId: run.workflowId });
      }),
    );
  }
  return { approvals, unanswered };
}
