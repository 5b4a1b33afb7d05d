// Checkpoints the task directory once per turn, before the turn's first call that may change it, and records which
// call that was. The workflow keeps what the activity returned, so a crash or a replay never takes it again at
// another moment. Workflow-safe.
import { ActivityFailure, isCancellation, log, patched, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { AgentActivities } from '../common/activity-contract.js';
import type { AgentState, ToolCallView, ToolMeta } from '../common/types.js';

/** Added with checkpoints; histories recorded before replay without them. */
export const CHECKPOINT_PATCH = 'checkpoint-before-mutating-calls';

/**
 * Whether a call may change the task directory: a tool the worker runs (the agent-loop tools run in the workflow
 * and touch no file) that does not declare itself read-only. An unknown tool runs nothing, so it needs none.
 */
export function mayChangeFiles(meta: ToolMeta | undefined): boolean {
  return meta !== undefined && !meta.agentLoop && meta.sideEffects !== 'read-only';
}

export class TurnCheckpoints {
  /** The worker said checkpoints are off: not asked again in this run. */
  private off = false;
  private turn = 0;
  private taking: Promise<string | undefined> | undefined;

  constructor(private readonly opts: { cwd: string; heartbeatTimeoutSeconds: number; state: AgentState }) {}

  /**
   * Before a call's first activity: the turn's checkpoint, taken by the first call of the turn that may change
   * files (the others of the turn, parallel ones included, wait for it). The call it preceded carries its id.
   */
  async before(meta: ToolMeta | undefined, name: string, view: ToolCallView): Promise<void> {
    if (this.off || !mayChangeFiles(meta)) return;
    if (this.turn === view.turn) {
      await this.taking;
      return;
    }
    if (!patched(CHECKPOINT_PATCH)) return;
    this.turn = view.turn;
    this.taking = this.take(name, view);
    const id = await this.taking;
    if (id) view.checkpoint = id;
  }

  private async take(name: string, view: ToolCallView): Promise<string | undefined> {
    const acts = proxyActivities<AgentActivities>({
      // The first checkpoint of a large directory reads all of it; later ones read what changed.
      startToCloseTimeout: '30 minutes',
      heartbeatTimeout: `${Math.max(this.opts.heartbeatTimeoutSeconds, 10)} seconds`,
      retry: { initialInterval: '1 second', maximumAttempts: 3 },
      summary: `checkpoint before turn ${view.turn}`,
    });
    try {
      const out = await acts.checkpointTask({
        cwd: this.opts.cwd,
        chain: workflowInfo().firstExecutionRunId,
        turn: view.turn,
        callId: view.id,
        tool: name,
        args: view.summary,
      });
      if (out.off) {
        this.off = true;
        return undefined;
      }
      this.opts.state.lastCheckpoint = {
        turn: view.turn,
        callId: view.id,
        tool: name,
        ...(out.id ? { id: out.id } : { skipped: out.skipped ?? 'no reason given' }),
      };
      return out.id;
    } catch (err) {
      if (isCancellation(err) || !(err instanceof ActivityFailure)) throw err;
      // The call still runs: a checkpoint is a way back, and its failure (a full disk, say) must not stop the run.
      const why = err.cause?.message ?? err.message;
      log.warn('checkpoint failed; the call runs without one', { turn: view.turn, error: why });
      this.opts.state.lastCheckpoint = { turn: view.turn, callId: view.id, tool: name, skipped: `failed: ${why}` };
      return undefined;
    }
  }
}
