// What a run shows in visibility: its status and, for each pending approval, a bounded, escaped and redacted
// description a person can decide from, with what a wider approval would cover. Workflow-safe (pure).
import { derivedRenderer, lineCount, renderApprovalText, splitShown } from '../approval/approval-text.js';
import type { PendingApproval } from '../common/approval-types.js';
import type { AgentState } from '../common/types.js';
import type { MemoApproval, RunMemo, VisibleStatus } from '../common/search-attributes.js';

/** Bounds that keep the memo far below Temporal's memo size limit (2 KB warns, 32 KB fails) in the worst case. */
export const MEMO_LIMITS = { approvals: 8, commandChars: 600, findings: 6, descriptionChars: 200, textChars: 200 };

/**
 * Visibility is readable by anyone with access to the namespace: secret values are replaced by a marked span (that
 * stops at shell metacharacters, so no code is hidden), long blank runs are collapsed as counts; the exact text is
 * in the run's state (`tether approvals --exact`, the inbox's "exact text").
 */
function shown(text: string, max: number, newlines?: 'escape') {
  const r = renderApprovalText(text, { redact: true, newlines });
  const shortened = r.text.length > max;
  return { ...r, text: shortened ? `${r.text.slice(0, max - 1)}…` : r.text, shortened };
}

const line = (text: string, max: number): string => shown(text, max, 'escape').text;

/** A text derived from the approval's command, on one line, redacted with the command's values, cut at `max`. */
function derivedLine(derived: ReturnType<typeof derivedRenderer>, text: string, max: number): string {
  const r = derived(text).text;
  return r.length > max ? `${r.slice(0, max - 1)}…` : r;
}

export function memoApproval(p: PendingApproval): MemoApproval {
  // What the model asked to run; the files the gate read are named (their content stays in the run's state).
  const { asked, files } = splitShown(p.command, p.readFiles);
  const c = shown(asked, MEMO_LIMITS.commandChars);
  const derived = derivedRenderer(p.command, true);
  const scope = p.scope;
  return {
    approvalId: p.approvalId,
    callId: p.callId,
    tool: line(p.tool, 100),
    command: c.text,
    ...(c.shortened ? { shortened: true, chars: asked.length } : {}),
    ...(c.redacted ? { redacted: true } : {}),
    ...(c.hidden || files.some((f) => derived(f.content, { whitespace: 'file' }).hidden) ? { hidden: true } : {}),
    ...(c.collapsed ? { collapsed: true } : {}),
    findings: p.findings.slice(0, MEMO_LIMITS.findings).map((f) => ({
      rule: line(f.rule, 100),
      tier: f.tier,
      description: derivedLine(derived, f.description, MEMO_LIMITS.descriptionChars),
    })),
    ...(files.length > 0
      ? {
          reads: files.slice(0, MEMO_LIMITS.findings).map((f) => ({
            path: derivedLine(derived, f.path, MEMO_LIMITS.textChars),
            lines: lineCount(f.content),
            chars: f.content.length,
          })),
        }
      : {}),
    argsDigest: p.argsDigest,
    askedAt: p.askedAt,
    expiresAt: p.expiresAt,
    ...(p.cwd !== undefined ? { cwd: derivedLine(derived, p.cwd, MEMO_LIMITS.textChars) } : {}),
    ...(p.changed
      ? { changed: p.changed.slice(0, 20).map((f) => derivedLine(derived, f, MEMO_LIMITS.textChars)) }
      : {}),
    ...(scope
      ? {
          scope: {
            covers: line(scope.covers, MEMO_LIMITS.descriptionChars * 2),
            ...(scope.onceOnly ? { onceOnly: line(scope.onceOnly, MEMO_LIMITS.descriptionChars * 2) } : {}),
            ...(scope.always ? { always: true } : {}),
            ...(scope.alwaysNot ? { alwaysNot: line(scope.alwaysNot, MEMO_LIMITS.descriptionChars * 2) } : {}),
          },
        }
      : {}),
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
