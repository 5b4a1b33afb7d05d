// Follows a running agent workflow: one line per tool call, a spinner while waiting, then the result. Worker-only.
import type { Client, WorkflowHandle } from '@temporalio/client';
import { queryRunState, runFailure } from '../temporal/run-handle.js';
import type { AgentResult, AgentState } from '../common/types.js';
import type { ApprovalDecision, PendingApproval } from '../common/approval-types.js';
import type { PromptAnswer } from '../cli/approval-prompt.js';
import { visibleText } from '../approval/visible-text.js';

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const POLL_MS = 400;

export interface FollowOutcome {
  status: AgentResult['status'];
  result?: AgentResult;
  error?: string;
  /** Following stopped (Ctrl-C) while the run goes on. */
  detached?: boolean;
  /** `until` held: the run goes on (a conversation waiting for its next message). */
  reached?: boolean;
}

/** Who is asked about a pending approval: this terminal (ApprovalPrompter), or an editor over ACP. */
export interface ApprovalAsker {
  /** Null: no answer (input ended, or the asker gave up); the approval stays pending for `tether approve`. */
  ask(approval: PendingApproval): Promise<PromptAnswer | null>;
  readonly exhausted: boolean;
}

/** Where progress goes: stderr, so that stdout carries only the answer (or JSON). */
class Progress {
  private frame = 0;
  private spinning = false;
  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly enabled: boolean,
  ) {}

  line(text: string): void {
    if (!this.enabled) return;
    this.clear();
    this.out.write(`${text}\n`);
  }

  spin(text: string): void {
    if (!this.enabled || !this.out.isTTY) return;
    this.frame = (this.frame + 1) % FRAMES.length;
    this.out.write(`\r\x1b[2K${FRAMES[this.frame]} ${text}`);
    this.spinning = true;
  }

  clear(): void {
    if (this.spinning) this.out.write('\r\x1b[2K');
    this.spinning = false;
  }
}

const queryState = (client: Client, handle: WorkflowHandle): Promise<AgentState | undefined> =>
  queryRunState(client, handle, 3_000);

/** Follows until the run closes, or until `signal` aborts (Ctrl-C): then the run goes on without us. */
export interface FollowOptions {
  progress: boolean;
  signal?: AbortSignal;
  /** Ask about pending approvals; `decide` sends the answer. */
  prompter?: ApprovalAsker;
  decide?: (decision: ApprovalDecision) => Promise<string>;
  /** Called with every state read, before approvals are asked about (an editor turns it into updates). */
  onState?: (state: AgentState) => Promise<void> | void;
  /** Stop following once this holds for a state read; the run goes on. */
  until?: (state: AgentState) => boolean;
}

export async function follow(client: Client, workflowId: string, opts: FollowOptions): Promise<FollowOutcome> {
  const handle = client.workflow.getHandle(workflowId);
  const progress = new Progress(process.stderr, opts.progress);
  let settled: FollowOutcome | undefined;
  const done = handle
    .result()
    .then((result: AgentResult) => {
      settled = { status: result.status, result };
    })
    .catch((err: unknown) => {
      settled = runFailure(err);
    });
  const interrupted = new Promise<void>((resolve) => {
    if (opts.signal?.aborted) resolve();
    opts.signal?.addEventListener('abort', () => resolve(), { once: true });
  });
  let printed = 0;
  const printNew = (state: AgentState | undefined): void => {
    for (const call of state?.recentToolCalls ?? []) {
      if (call.index <= printed) continue;
      progress.line(`  ${call.emoji} ${call.name}  ${visibleText(call.summary, { newlines: 'escape' })}`);
      printed = call.index;
    }
  };
  const asked = new Set<string>();
  const askAbout = async (pending: PendingApproval[]): Promise<void> => {
    const { prompter, decide } = opts;
    if (!prompter || !decide) return;
    for (const p of pending) {
      if (asked.has(p.approvalId) || prompter.exhausted) continue;
      asked.add(p.approvalId);
      progress.clear();
      // The run may end (or the approval time out) while the person thinks: stop asking then.
      const answer = await Promise.race([prompter.ask(p), done.then(() => null)]);
      if (!answer) continue;
      const said = await decide({
        approvalId: p.approvalId,
        callId: p.callId,
        argsDigest: p.argsDigest,
        by: 'prompt',
        ...answer,
      });
      process.stderr.write(`  ${said}\n`);
    }
  };
  while (!settled) {
    if (opts.signal?.aborted) {
      progress.clear();
      return { status: 'running', detached: true };
    }
    const state = await queryState(client, handle);
    printNew(state);
    if (state) await opts.onState?.(state);
    if (state && opts.until?.(state)) {
      progress.clear();
      return { status: 'running', reached: true };
    }
    await askAbout(state?.pendingApprovals ?? []);
    if (state) {
      const running = state.currentToolCalls.length;
      const waiting = state.pendingApprovals.length;
      progress.spin(
        waiting > 0
          ? `turn ${state.turn} · waiting for ${waiting} approval${waiting > 1 ? 's' : ''} (tether approvals)`
          : running > 0
            ? `turn ${state.turn} · running ${running} tool call${running > 1 ? 's' : ''}`
            : `turn ${state.turn} · waiting for the model`,
      );
    } else {
      progress.spin('waiting for a worker');
    }
    await Promise.race([done, interrupted, new Promise((r) => setTimeout(r, POLL_MS))]);
  }
  // Calls made after the last poll.
  if (opts.progress || opts.onState) {
    const last = await queryState(client, handle);
    printNew(last);
    if (last) await opts.onState?.(last);
  }
  progress.clear();
  return settled;
}
