// Sends an approval decision to a run: as the decideApproval update when a worker answers (the caller learns
// whether it applied), else as the approval signal, which waits durably for a worker. Worker-only.
import { WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import type { TemporalSettings } from '../temporal/settings.js';
import type { ApprovalChoice, ApprovalDecision } from '../common/approval-types.js';
import { APPROVAL_SIGNAL, DECIDE_APPROVAL_UPDATE } from '../common/workflow-messages.js';
import { hasLiveWorker } from '../temporal/live-worker.js';

export type DecideOutcome =
  /** `applies`: what the choice gave (narrower than asked when the approval does not allow it). */
  | { status: 'applied'; via: 'update'; applies?: ApprovalChoice }
  | { status: 'rejected'; via: 'update'; reason: string }
  | { status: 'queued'; via: 'signal'; note: string };

const UPDATE_WAIT_MS = 10_000;

export async function sendDecision(
  client: Client,
  settings: TemporalSettings,
  workflowId: string,
  decision: ApprovalDecision,
): Promise<DecideOutcome> {
  const handle = client.workflow.getHandle(workflowId);
  const desc = await handle.describe(); // an unknown run fails clearly here
  if (desc.status.name !== 'RUNNING')
    return {
      status: 'rejected',
      via: 'update',
      reason: `run ${workflowId} is ${desc.status.name.toLowerCase()}: nothing is pending`,
    };
  const queued = async (why: string): Promise<DecideOutcome> => {
    await handle.signal(APPROVAL_SIGNAL, decision);
    return {
      status: 'queued',
      via: 'signal',
      note: `${why}: the decision was sent as a signal and applies when a worker runs the workflow (an invalid one is recorded as rejected in its state)`,
    };
  };
  if (!(await hasLiveWorker(client, settings))) return queued('no worker is polling');
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), UPDATE_WAIT_MS)));
  try {
    const update = handle
      .executeUpdate<{ applies?: ApprovalChoice }, [ApprovalDecision]>(DECIDE_APPROVAL_UPDATE, { args: [decision] })
      .then((r) => ({ applies: r?.applies }));
    update.catch(() => undefined); // after a timeout nobody waits for it: a late rejection must not crash the CLI
    const answer = await Promise.race([update, timeout]);
    // A late update and the signal cannot both apply: the second is rejected as already decided.
    if (answer === 'timeout') return await queued(`no worker answered within ${UPDATE_WAIT_MS / 1000} s`);
    return { status: 'applied', via: 'update', ...(answer.applies ? { applies: answer.applies } : {}) };
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError)
      return { status: 'rejected', via: 'update', reason: err.cause?.message ?? err.message };
    throw err;
  } finally {
    clearTimeout(timer);
  }
}
