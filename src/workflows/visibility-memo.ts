// What a run shows in visibility: its status and, for each pending approval, a bounded, escaped and redacted
// description a person can decide from. Workflow-safe (pure).
import { hasHiddenCharacters, visibleText } from '../approval/visible-text.js';
import { redactSecrets } from '../environments/redact.js';
import type { PendingApproval } from '../common/approval-types.js';
import type { AgentState } from '../common/types.js';
import type { MemoApproval, RunMemo, VisibleStatus } from '../common/search-attributes.js';

/** Bounds that keep the memo far below Temporal's memo size limit (2 KB warns, 32 KB fails) in the worst case. */
export const MEMO_LIMITS = { approvals: 8, commandChars: 600, findings: 6, descriptionChars: 200, textChars: 200 };

/** Secrets are hidden by the shared redaction's patterns (the workflow cannot see a worker's environment). */
function shown(text: string, max: number): { text: string; shortened: boolean; redacted: boolean } {
  const redacted = redactSecrets(text, []);
  const escaped = visibleText(redacted);
  const shortened = escaped.length > max;
  return {
    text: shortened ? `${escaped.slice(0, max - 1)}…` : escaped,
    shortened,
    redacted: redacted !== text,
  };
}

const line = (text: string, max: number): string => shown(text, max).text.replace(/\n/g, '\\n');

export function memoApproval(p: PendingApproval): MemoApproval {
  const c = shown(p.command, MEMO_LIMITS.commandChars);
  return {
    approvalId: p.approvalId,
    callId: p.callId,
    tool: line(p.tool, 100),
    command: c.text,
    ...(c.shortened ? { shortened: true } : {}),
    ...(c.redacted ? { redacted: true } : {}),
    ...(hasHiddenCharacters(p.command) ? { hidden: true } : {}),
    findings: p.findings.slice(0, MEMO_LIMITS.findings).map((f) => ({
      rule: line(f.rule, 100),
      tier: f.tier,
      description: line(f.description, MEMO_LIMITS.descriptionChars),
    })),
    argsDigest: p.argsDigest,
    askedAt: p.askedAt,
    expiresAt: p.expiresAt,
  };
}

/** The status a running run shows: what it waits for, most urgent first. */
export function visibleStatus(state: AgentState, pending: readonly PendingApproval[]): VisibleStatus {
  if (state.status === 'limit_reached') return 'limit-reached';
  if (state.status !== 'running') return state.status;
  if (pending.length > 0) return 'waiting-approval';
  if (state.question) return 'waiting-answer';
  if (state.idle) return 'waiting-message';
  if (state.children.some((c) => c.status === 'running')) return 'waiting-subagents';
  return 'running';
}

/** `withUsage`: the run's token usage goes in too (runs started before it was kept leave it out, see visibility.ts). */
export function runMemo(
  state: AgentState,
  pending: readonly PendingApproval[],
  task?: string,
  withUsage = false,
): RunMemo {
  const q = state.question;
  return {
    v: 1,
    status: visibleStatus(state, pending),
    ...(withUsage ? { usage: { ...state.usage } } : {}),
    ...(task ? { task: line(task, MEMO_LIMITS.textChars) } : {}),
    approvals: pending.slice(0, MEMO_LIMITS.approvals).map(memoApproval),
    ...(pending.length > MEMO_LIMITS.approvals ? { moreApprovals: pending.length - MEMO_LIMITS.approvals } : {}),
    ...(q
      ? {
          question: {
            id: q.id,
            text: line(q.question, MEMO_LIMITS.textChars),
            askedAt: q.askedAt,
            expiresAt: q.expiresAt,
          },
        }
      : {}),
  };
}
