// One ACP session: a durable conversation run. The first prompt starts it, later prompts reach it as the
// `message` signal; a turn is followed with the same follower as `tether attach`, its state sent as session/update
// notifications, its approvals asked as permission requests and decided like `tether approve`. Worker-only.
import type { AgentContext, ContentBlock, SessionUpdate, StopReason } from '@agentclientprotocol/sdk';
import type { Client } from '@temporalio/client';
import { sendDecision } from '../decisions/decide.js';
import { follow } from '../decisions/follow.js';
import { newWorkflowId } from '../temporal/workflow-id.js';
import type { Logger } from '../logging/logger.js';
import { queryRunState } from '../temporal/run-handle.js';
import type { TemporalSettings } from '../temporal/settings.js';
import type { AgentInput, AgentState } from '../common/types.js';
import { MESSAGE_SIGNAL } from '../common/workflow-messages.js';
import { agentWorkflow } from '../workflows/agent-workflow.js';
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
  private answers = 0;
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
    this.answers = state.answers ?? 0;
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
    if (!(await this.running())) {
      // A first prompt, or one after the run was cancelled: a new run, under the session id when it is free.
      const workflowId = this.runId === undefined ? this.id : newWorkflowId();
      const input: AgentInput = {
        task: text,
        model: this.deps.model(),
        enabledToolsets: this.toolsets,
        cwd: this.cwd,
        conversation: true,
      };
      await client.workflow.start(agentWorkflow, { taskQueue: settings.taskQueue, workflowId, args: [input] });
      this.runId = workflowId;
      this.answers = 0;
      this.tracker = new UpdateTracker(this.cwd);
      log.info({ session: this.id, workflowId }, 'ACP session started a run');
    } else {
      await client.workflow.getHandle(this.runId!).signal(MESSAGE_SIGNAL, { text });
    }
    const runId = this.runId!;
    const baseline = this.answers;
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
      this.answers = last?.answers ?? baseline + 1;
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
