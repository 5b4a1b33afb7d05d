// One ACP session: a durable conversation run under the session's id. Each prompt is one update-with-start: it
// starts the run when none runs, or reaches the running one, in one step with no check-then-start race; a turn is
// followed with the same follower as `tether attach`, its state sent as session/update notifications, its approvals
// asked as permission requests and decided like `tether approve`. Worker-only.
import type { AgentContext, ContentBlock, SessionUpdate, StopReason } from '@agentclientprotocol/sdk';
import { randomUUID } from 'node:crypto';
import { WithStartWorkflowOperation, type Client } from '@temporalio/client';
import { sendDecision } from '../decisions/decide.js';
import { follow } from '../decisions/follow.js';
import type { Logger } from '../logging/logger.js';
import { queryRunState } from '../temporal/run-handle.js';
import type { TemporalSettings } from '../temporal/settings.js';
import type { AgentInput, AgentState } from '../common/types.js';
import { agentWorkflow } from '../workflows/agent-workflow.js';
import { conversationTurnUpdate } from '../workflows/conversation-turn.js';
import { EditorAsker } from './permission.js';
import { UpdateTracker } from './updates.js';

export interface SessionDeps {
  client: Client;
  /** Settings whose task queue is where ACP runs go. */
  settings: TemporalSettings;
  log: Logger;
  /** The model for new runs (TETHER_MODEL, ...); throws a one-line reason when none is configured. */
  model: () => string;
}

/** A prompt's content as the task text: text as it is, resources by their text or address. */
export function promptText(blocks: readonly ContentBlock[]): string {
  const parts: string[] = [];
  for (const b of blocks) {
    if (b.type === 'text') parts.push(b.text);
    else if (b.type === 'resource_link') parts.push(`[${b.name}](${b.uri})`);
    else if (b.type === 'resource')
      parts.push(
        'text' in b.resource
          ? `${b.resource.uri}:\n${b.resource.text}`
          : `(binary resource ${b.resource.uri} left out)`,
      );
    else parts.push(`(${b.type} content left out: tether takes text)`);
  }
  return parts.join('\n\n').trim();
}

export class AcpSession {
  private tracker: UpdateTracker;
  private cancelTurn?: AbortController;

  constructor(
    readonly id: string,
    readonly cwd: string,
    private readonly toolsets: string[],
    private readonly editor: AgentContext,
    private readonly deps: SessionDeps,
    /** The conversation run; the first prompt starts one under the session's id. */
    private runId?: string,
  ) {
    this.tracker = new UpdateTracker(cwd);
  }

  /** Reattaches to a running conversation: what it said last is shown again, the rest continues from here. */
  async reattach(state: AgentState): Promise<void> {
    this.tracker.baseline(state);
    if (state.answer)
      await this.send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: state.answer } });
  }

  private send(update: SessionUpdate): Promise<void> {
    return this.editor.notify('session/update', { sessionId: this.id, update });
  }

  private async running(): Promise<boolean> {
    if (!this.runId) return false;
    const desc = await this.deps.client.workflow.getHandle(this.runId).describe();
    return desc.status.name === 'RUNNING';
  }

  /** One turn: until the run has answered this prompt (and waits for the next), or ends. */
  async prompt(text: string, connection: AbortSignal): Promise<StopReason> {
    const { client, settings, log } = this.deps;
    // The run goes by the session's id: a prompt after a run ended (cancelled) starts a new run under it.
    this.runId ??= this.id;
    const turnId = randomUUID();
    const input: AgentInput = {
      task: text,
      model: this.deps.model(),
      enabledToolsets: this.toolsets,
      cwd: this.cwd,
      conversation: true,
      turnId,
    };
    const accepted = await client.workflow.executeUpdateWithStart(conversationTurnUpdate, {
      args: [{ text, turnId }],
      startWorkflowOperation: new WithStartWorkflowOperation(agentWorkflow, {
        taskQueue: settings.taskQueue,
        workflowId: this.runId,
        args: [input],
        workflowIdConflictPolicy: 'USE_EXISTING',
      }),
    });
    if (accepted.started) {
      this.tracker = new UpdateTracker(this.cwd);
      log.info({ session: this.id, workflowId: this.runId }, 'ACP session started a run');
    }
    const runId = this.runId;
    // The reply to this prompt is the first answer after the ones given when the run took it.
    const baseline = accepted.answers;
    const cancel = new AbortController();
    this.cancelTurn = cancel;
    let last: AgentState | undefined;
    const outcome = await follow(client, runId, {
      progress: false,
      signal: connection,
      prompter: new EditorAsker(this.editor, this.id, log, cancel.signal),
      decide: async (decision) => {
        const out = await sendDecision(client, settings, runId, { ...decision, by: 'acp' });
        return out.status === 'rejected' ? `not applied: ${out.reason}` : out.status;
      },
      onState: async (state) => {
        last = state;
        for (const update of this.tracker.updates(state)) await this.send(update);
      },
      until: (state) => state.idle === true && (state.answers ?? 0) > baseline,
    });
    this.cancelTurn = undefined;
    if (outcome.reached) {
      return last?.stopReason === 'max_turns' ? 'max_turn_requests' : 'end_turn';
    }
    if (outcome.status === 'cancelled' || outcome.detached) return 'cancelled';
    if (outcome.status === 'failed')
      await this.send({
        sessionUpdate: 'agent_message_chunk',
        content: { type: 'text', text: `✗ the run failed: ${outcome.error ?? ''}` },
      });
    return 'end_turn';
  }

  /** session/cancel: the run is cancelled (its commands stopped); the prompt answers `cancelled` once it is. */
  async cancel(): Promise<void> {
    this.cancelTurn?.abort();
    if (!(await this.running().catch(() => false))) return;
    await this.deps.client.workflow.getHandle(this.runId!).cancel();
    this.deps.log.info({ session: this.id, workflowId: this.runId }, 'ACP session cancelled its run');
  }

  static async stateOf(client: Client, runId: string): Promise<AgentState | undefined> {
    return queryRunState(client, client.workflow.getHandle(runId), 5_000);
  }
}
