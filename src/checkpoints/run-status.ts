// Whether a run may be rolled back now: refused while it is active (its next call would race the rollback, and
// its model would not know), unless forced. Shared by `tether rollback` and the inbox. Worker-only.
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { queryRunState } from '../temporal/run-handle.js';

export interface RunCheck {
  /** Why the rollback is refused; undefined when it may go on. */
  refusal?: string;
  /** The run's chain (its first run id): `--turn` counts turns of this run. */
  chain?: string;
  /** Said with the result: the run is unknown to Temporal (its history was deleted) but has checkpoints here. */
  note?: string;
}

export async function checkRun(client: Client, workflowId: string, force: boolean): Promise<RunCheck> {
  const handle = client.workflow.getHandle(workflowId);
  let desc;
  try {
    desc = await handle.describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError)
      return { note: `${workflowId} is not known to Temporal (any more); its checkpoints here are used` };
    throw err;
  }
  const chain = desc.raw.workflowExecutionInfo?.firstRunId || undefined;
  if (desc.status.name !== 'RUNNING' || force) return { ...(chain ? { chain } : {}) };
  const state = await queryRunState(client, handle, 3_000);
  const doing = state
    ? state.idle
      ? 'it waits for its next message'
      : `turn ${state.turn}${state.currentToolCalls[0] ? `, running ${state.currentToolCalls[0].name}` : ''}`
    : 'no worker answered its state query';
  return {
    refusal:
      `${workflowId} is still running (${doing}): a rollback now would race its tool calls, and its model would not ` +
      `know the files changed. Cancel it first (tether cancel ${workflowId}), or roll back anyway with --force`,
    ...(chain ? { chain } : {}),
  };
}
