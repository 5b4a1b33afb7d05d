// The lines `tether run` and `tether attach` print when a run starts waiting for a person (an approval, a question)
// and when it goes on: what it waits for and the exact command to decide, so output read later, or from a pipe,
// says why nothing moves. Redacted as every shared view is (a log or CI output is read by others). Worker-only (pure).
import { renderApprovalText, splitShown } from '../approval/approval-text.js';
import { viewOfPending } from '../approval/approval-view.js';
import type { PendingApproval } from '../common/approval-types.js';
import type { AgentState } from '../common/types.js';

/** Characters of the command a line shows; the listing (`tether approvals`) shows it whole. */
const SHOWN = 160;

const clip = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** Follows successive states of one run and says what changed for the person. */
export class WaitingLines {
  private readonly approvals = new Map<string, PendingApproval>();
  private question: string | undefined;

  constructor(private readonly workflowId: string) {}

  /**
   * Lines for what began or ended waiting since the last state. `asked`: approvals this terminal asks about itself
   * (its prompt says everything), which get no waiting line.
   */
  next(state: AgentState, asked: (approvalId: string) => boolean = () => false): string[] {
    const out: string[] = [];
    const now = new Map(state.pendingApprovals.map((p) => [p.approvalId, p]));
    for (const [id, p] of this.approvals) {
      if (now.has(id)) continue;
      this.approvals.delete(id);
      out.push(this.resumed(state, p));
    }
    for (const [id, p] of now) {
      if (this.approvals.has(id)) continue;
      this.approvals.set(id, p);
      if (!asked(id)) out.push(this.waiting(p));
    }
    const q = state.question;
    if (this.question !== undefined && q?.id !== this.question) {
      out.push(`▶ going on: question ${this.question} ${q ? 'replaced by another' : 'answered (or timed out)'}`);
      this.question = undefined;
    }
    if (q && this.question === undefined) {
      this.question = q.id;
      const text = clip(renderApprovalText(q.question, { redact: true, newlines: 'escape' }).text, SHOWN);
      out.push(
        `⏸ waiting for a person: the agent asks "${text}"${q.choices ? ` (${q.choices.join(' / ')})` : ''} — answer with: tether answer ${this.workflowId} "..."`,
      );
    }
    return out;
  }

  /** The run ended and its last state could not be read: what was waiting is waiting no more. */
  ended(): string[] {
    const out = [...this.approvals.keys()].map((id) => `▶ going on: approval ${id} is no longer waiting`);
    if (this.question !== undefined) out.push(`▶ going on: question ${this.question} is no longer waiting`);
    this.approvals.clear();
    this.question = undefined;
    return out;
  }

  private waiting(p: PendingApproval): string {
    const view = viewOfPending(p, { redact: true });
    const what = view.network !== undefined ? `network ${view.network}` : view.tool;
    // The command on one line, rendered and redacted as the listing shows it; the files it reads are left to it.
    const asked = splitShown(p.command, p.readFiles).asked;
    const command = clip(renderApprovalText(asked, { redact: true, newlines: 'escape' }).text, SHOWN);
    const rules = view.findings.map((f) => f.rule).join(', ');
    return (
      `⏸ waiting for a person: approval ${p.approvalId} of ${what}: ${command}${rules ? ` [${rules}]` : ''} — ` +
      `approve with: tether approve ${this.workflowId} ${p.approvalId} (or: tether deny ${this.workflowId} ${p.approvalId}); ` +
      'everything waiting: tether approvals'
    );
  }

  private resumed(state: AgentState, p: PendingApproval): string {
    const d = state.approvals.decided.find((x) => x.approvalId === p.approvalId);
    if (!d) return `▶ going on: approval ${p.approvalId} is no longer waiting`;
    const by = d.by ? ` by ${d.by}` : '';
    if (d.source === 'timeout') return `▶ going on: approval ${p.approvalId} timed out, which counts as denied`;
    if (d.choice === 'deny')
      return `▶ going on: approval ${p.approvalId} denied${by}${d.reason ? `: ${d.reason}` : ''}`;
    return `▶ going on: approval ${p.approvalId} approved (${d.choice})${by}`;
  }
}
