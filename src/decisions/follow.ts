// Follows a running agent workflow: one line per tool call, a spinner while waiting, then the result. Worker-only.
import type { Client, WorkflowHandle } from '@temporalio/client';
import { queryRunState, runFailure } from '../temporal/run-handle.js';
import type { AgentResult, AgentState } from '../common/types.js';
import type { ApprovalDecision, PendingApproval } from '../common/approval-types.js';
import type { PromptAnswer } from '../cli/approval-prompt.js';
import { renderApprovalText } from '../approval/approval-text.js';
import { WaitingLines } from './waiting-lines.js';

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
  /**
   * Say in one line when the run starts waiting for a person (what for, and the command that decides) and when it goes
   * on, and which queue it waits on while no worker has it: on standard error, even from a pipe or with --json.
   */
  announce?: boolean;
  /** The run's task queue, named while no worker answers. */
  queue?: string;
  /** When the run started, for the elapsed time the spinner shows. */
  startedAt?: Date;
  /** The caller said already that no worker has the run (the line is not printed again). */
  noWorkerSaid?: boolean;
}

/** 75 s → "1m 15s"; 2 h 3 min → "2h 3m". */
export function elapsed(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
}

/** How long a run may go unanswered before a follower says it waits for a worker (the first pickup takes a moment). */
const NO_WORKER_MS = 5_000;

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
      // Rendered as an approval's text is, and redacted: this output often ends up in a log others read.
      const title = renderApprovalText(call.summary, { redact: true, newlines: 'escape' }).text;
      progress.line(`  ${call.emoji} ${call.name}  ${title}`);
      printed = call.index;
    }
  };
  const waiting = new WaitingLines(workflowId);
  const say = (line: string): void => {
    progress.clear();
    process.stderr.write(`${line}\n`);
  };
  let lastAnswer = Date.now();
  let unanswered = opts.noWorkerSaid ?? false;
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
    if (state) lastAnswer = Date.now();
    if (state && opts.announce) {
      // The prompt asks about approvals itself; every other one gets its line (a pipe, --no-prompt, input ended).
      const asking = (): boolean => !!opts.prompter && !opts.prompter.exhausted;
      for (const line of waiting.next(state, asking)) say(line);
      if (unanswered) say('▶ going on: a worker took the run');
      unanswered = false;
    } else if (
      !state &&
      opts.queue &&
      opts.announce &&
      !unanswered &&
      !settled &&
      Date.now() - lastAnswer > NO_WORKER_MS
    ) {
      unanswered = true;
      say(
        `⏸ waiting for a worker on queue ${opts.queue}: none has answered yet ('tether worker' from the same TETHER_HOME starts one; TETHER_TASK_QUEUE names another queue)`,
      );
    }
    if (state) await opts.onState?.(state);
    if (state && opts.until?.(state)) {
      progress.clear();
      return { status: 'running', reached: true };
    }
    await askAbout(state?.pendingApprovals ?? []);
    const since = opts.startedAt ? ` · ${elapsed(Date.now() - opts.startedAt.getTime())}` : '';
    if (state) {
      const running = state.currentToolCalls.length;
      const pending = state.pendingApprovals.length;
      progress.spin(
        (pending > 0
          ? `turn ${state.turn} · waiting for ${pending} approval${pending > 1 ? 's' : ''} (tether approvals)`
          : state.question
            ? `turn ${state.turn} · waiting for your answer (tether answer)`
            : running > 0
              ? `turn ${state.turn} · running ${running} tool call${running > 1 ? 's' : ''}`
              : `turn ${state.turn} · waiting for the model`) + since,
      );
    } else {
      progress.spin(`waiting for a worker${opts.queue ? ` on queue ${opts.queue}` : ''}${since}`);
    }
    await Promise.race([done, interrupted, new Promise((r) => setTimeout(r, POLL_MS))]);
  }
  // Calls made after the last poll, and what stopped waiting meanwhile.
  if (opts.progress || opts.onState || opts.announce) {
    const last = await queryState(client, handle);
    printNew(last);
    if (opts.announce) for (const line of last ? waiting.next(last) : waiting.ended()) say(line);
    if (last) await opts.onState?.(last);
  }
  progress.clear();
  return settled;
}
