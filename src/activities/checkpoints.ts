// The checkpoint activity: snapshots the task directory before a turn's first call that may change it, and
// prunes the store now and then. Worker-only.
import { Context } from '@temporalio/activity';
import type { CheckpointInput, CheckpointOutput } from '../common/activity-contract.js';
import type { TetherConfig } from '../config/config.js';
import type { Logger } from '../logging/logger.js';
import { shortArgs } from '../checkpoints/meta.js';
import { pruneSoon } from '../checkpoints/prune.js';
import { takeCheckpoint } from '../checkpoints/snapshot.js';
import { CheckpointStore } from '../checkpoints/store.js';
import { withHeartbeat } from './heartbeat.js';

/** A turn's ref name: sorts by turn, and a retried attempt of the same turn replaces the first one's. */
export const turnRef = (turn: number): string => `t${String(turn).padStart(8, '0')}`;

export function createCheckpointActivities(deps: { config: TetherConfig; log: Logger; home?: string }) {
  const settings = deps.config.checkpoints;
  const store = new CheckpointStore(deps.home);

  async function checkpointTask(input: CheckpointInput): Promise<CheckpointOutput> {
    if (!settings.enabled) return { off: 'checkpoints are off (checkpoints: false in config.yaml)' };
    const workflowId = Context.current().info.workflowExecution?.workflowId;
    if (workflowId === undefined) return { skipped: 'not called by a run' };
    return withHeartbeat(async (signal) => {
      const taken = await takeCheckpoint(
        store,
        settings,
        input.cwd,
        {
          kind: 'turn',
          workflowId,
          chain: input.chain,
          turn: input.turn,
          callId: input.callId,
          tool: input.tool,
          args: shortArgs(input.args),
        },
        turnRef(input.turn),
        { signal },
      );
      if ('skipped' in taken) {
        deps.log.warn({ workflowId, turn: input.turn, reason: taken.skipped }, 'no checkpoint taken');
        return { skipped: taken.skipped };
      }
      pruneSoon(store, settings, deps.log);
      const { checkpoint, scan } = taken;
      return { id: checkpoint.id, files: scan.files, bytes: scan.bytes };
    });
  }

  return { checkpointTask };
}
