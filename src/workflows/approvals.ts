// Approvals as workflow state: pending approvals bound to tool calls, decisions by signal or update (validated),
// session scope, smart approval, timeouts as denials. Workflow-safe.
import {
  condition,
  defineSignal,
  defineUpdate,
  isCancellation,
  log,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  uuid4,
} from '@temporalio/workflow';
import type { AgentActivities } from '../common/activity-contract.js';
import {
  APPROVAL_CHOICES,
  type ApprovalChoice,
  type ApprovalDecision,
  type ApprovalFinding,
  type ApprovalMode,
  type ApprovalScope,
  type CommandAssessment,
  type DecidedApproval,
  type PendingApproval,
  type RejectedDecision,
} from '../common/approval-types.js';
import { APPROVAL_SIGNAL, DECIDE_APPROVAL_UPDATE } from '../common/workflow-messages.js';
import { sha256Hex } from '../common/sha256.js';
import { approvalAsked, approvalDecided } from './approval-telemetry.js';
import { ApprovalNotices } from './approval-notice.js';

export const approvalSignal = defineSignal<[ApprovalDecision]>(APPROVAL_SIGNAL);
export const decideApprovalUpdate = defineUpdate<
  { approvalId: string; choice: string; applies?: ApprovalChoice },
  [ApprovalDecision]
>(DECIDE_APPROVAL_UPDATE);

const KEEP_DECIDED = 50;
/** A decided approval's command is kept at most this long in the run's state (50 of them in a query's answer). */
const MAX_RECORDED_CHARS = 4_000;
/** Session approvals a run keeps (oldest forgotten first: forgetting one only makes that call ask again). */
const KEEP_SESSION_SCOPES = 500;

/**
 * Added when a wider approval came to cover exactly the call the person saw (its canonical form with the digests of
 * the files read for it) instead of every call its rules match; with it, a call whose text is too large to show is
 * refused, and a cancelled run drops its pending approvals. Older histories replay with session rules.
 */
export const EXACT_SCOPE_PATCH = 'approval-covers-what-was-seen';

interface ApprovalState {
  pending: PendingApproval[];
  decided: DecidedApproval[];
  rejected: RejectedDecision[];
  /** Rules approved for the rest of the session (runs recorded before EXACT_SCOPE_PATCH). */
  sessionRules: string[];
  /** Calls approved for the rest of the session, by their scope key (ApprovalScope.key). */
  sessionScopes: string[];
}

/**
 * What a choice gives for this approval: a wider choice than it allows is narrowed (never widened): `session` and
 * `always` to `once` where tether could not read what runs or no scope is known, `always` to `session` where no
 * allowlist entry could hold what was shown.
 */
export function applies(choice: ApprovalChoice, scope: ApprovalScope | undefined): ApprovalChoice {
  if (choice === 'once' || choice === 'deny') return choice;
  if (!scope || scope.onceOnly) return 'once';
  if (choice === 'always' && !scope.always) return 'session';
  return choice;
}

const assess = proxyLocalActivities<AgentActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 5 },
});
const effects = proxyActivities<AgentActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 5 },
  summary: 'approval',
});

/** What the gate decided for one tool call. */
type GateOutcome = { run: true; approved: boolean } | { run: false; result: string };

export interface GateRequest {
  callId: string;
  tool: string;
  command: string;
  args: string;
  argsDigest: string;
  findings?: ApprovalFinding[];
  cwd: string;
  model: string;
  mode?: ApprovalMode;
  timeoutSeconds?: number;
  /** The verdict assessCall already reached (every gated tool); without it the gate judges `command` itself. */
  assessment?: CommandAssessment;
}

const denied = (why: string): string => JSON.stringify({ error: why, denied: true });

export class ApprovalBook {
  readonly state: ApprovalState;
  /** The notice (approvals.webhook_url) of each pending approval: other kinds of approval send theirs here too. */
  readonly notices = new ApprovalNotices();
  private readonly decisions = new Map<string, ApprovalDecision>();

  constructor(carried?: Partial<ApprovalState>) {
    this.state = {
      pending: [],
      decided: [],
      rejected: [],
      sessionRules: [...(carried?.sessionRules ?? [])],
      sessionScopes: [...(carried?.sessionScopes ?? [])],
    };
    setHandler(approvalSignal, (d) => {
      const problem = this.problemWith(d);
      if (problem) {
        // A signal cannot answer its sender: the rejection is kept in the state for `tether status`.
        this.state.rejected = [
          ...this.state.rejected,
          { approvalId: String(d?.approvalId), reason: problem, at: new Date().toISOString() },
        ].slice(-KEEP_DECIDED);
        log.warn('approval decision rejected', { approvalId: d?.approvalId, reason: problem });
        return;
      }
      this.decisions.set(d.approvalId, d);
    });
    setHandler(
      decideApprovalUpdate,
      (d) => {
        this.decisions.set(d.approvalId, d);
        // The caller learns what its choice gives (approvals asked before scopes say nothing more).
        const scope = this.state.pending.find((p) => p.approvalId === d.approvalId)?.scope;
        return { approvalId: d.approvalId, choice: d.choice, ...(scope ? { applies: applies(d.choice, scope) } : {}) };
      },
      {
        validator: (d) => {
          const problem = this.problemWith(d);
          if (problem) throw new Error(problem);
        },
      },
    );
  }

  /** Why a decision cannot apply, or undefined when it can. */
  problemWith(d: ApprovalDecision | undefined): string | undefined {
    if (!d || typeof d !== 'object' || typeof d.approvalId !== 'string') return 'a decision needs an approvalId';
    if (!APPROVAL_CHOICES.includes(d.choice))
      return `choice must be one of ${APPROVAL_CHOICES.join(', ')} (got ${JSON.stringify(d.choice)})`;
    if (d.reason !== undefined && (typeof d.reason !== 'string' || d.reason.length > 2000))
      return 'reason must be a string of at most 2000 characters';
    const pending = this.state.pending.find((p) => p.approvalId === d.approvalId);
    if (!pending) {
      const done = this.state.decided.find((p) => p.approvalId === d.approvalId);
      if (done) return `approval ${d.approvalId} was already decided (${done.choice}, ${done.source})`;
      // Other pending ids are not named: a sender who guesses ids learns nothing about approvals that are not theirs.
      return `unknown approval id ${d.approvalId}: it is not pending in this run`;
    }
    if (this.decisions.has(d.approvalId)) return `approval ${d.approvalId} was already decided`;
    if (d.callId !== undefined && d.callId !== pending.callId)
      return `approval ${d.approvalId} is for tool call ${pending.callId}, not ${d.callId}`;
    if (d.argsDigest !== undefined && d.argsDigest !== pending.argsDigest)
      return `approval ${d.approvalId} is for different arguments (digest ${pending.argsDigest}, not ${d.argsDigest})`;
    return undefined;
  }

  record(entry: DecidedApproval): void {
    // The record is for the audit trail, not for deciding (the whole text was shown while it was pending): a long one
    // is kept shortened, so the run's state stays far below a query's size limit.
    const command =
      entry.command.length > MAX_RECORDED_CHARS
        ? `${entry.command.slice(0, MAX_RECORDED_CHARS)}… (${entry.command.length} characters in all)`
        : entry.command;
    this.state.decided = [...this.state.decided, { ...entry, command }].slice(-KEEP_DECIDED);
  }

  // Other kinds of approval (network, src/workflows/egress-approvals.ts) are listed, decided and recorded here too:
  // the same query, signal, update and channels.

  /** Lists an approval as pending; decisions for it are then accepted. */
  addPending(p: PendingApproval): void {
    this.state.pending = [...this.state.pending, p];
  }

  removePending(approvalId: string): void {
    this.state.pending = this.state.pending.filter((p) => p.approvalId !== approvalId);
    this.notices.stop(approvalId);
  }

  /** The decision that arrived for a pending approval, taken (undefined while none has). */
  takeDecision(approvalId: string): ApprovalDecision | undefined {
    const d = this.decisions.get(approvalId);
    this.decisions.delete(approvalId);
    return d;
  }

  hasDecision(approvalId: string): boolean {
    return this.decisions.has(approvalId);
  }

  /**
   * Decides whether a tool call runs. With `findings` (a plugin hook asked for approval) the command analysis is
   * skipped; otherwise the worker judges the command, then the allowlist, session rules, mode and a person decide.
   */
  async gate(req: GateRequest): Promise<GateOutcome> {
    let a: CommandAssessment;
    if (req.assessment) {
      a = req.assessment;
    } else if (req.findings) {
      const policy = await assess.assessCommand({ command: '', cwd: req.cwd });
      a = { ...policy, dangerous: true, tier: 'dangerous', findings: req.findings, allowlistedBy: undefined };
    } else {
      a = await assess.assessCommand({ command: req.command, cwd: req.cwd });
    }
    const mode = req.mode ?? a.mode;
    if (!a.dangerous) return { run: true, approved: false };
    if (a.tier === 'hardline') {
      const what = a.findings
        .filter((f) => f.tier === 'hardline')
        .map((f) => `[${f.rule}] ${f.description}`)
        .join('; ');
      return {
        run: false,
        result: JSON.stringify({
          error: `Refused: this command is never run, whatever the approval mode: ${what}`,
          hardline: true,
        }),
      };
    }
    const rules = a.findings.map((f) => f.rule);
    const exact = patched(EXACT_SCOPE_PATCH);
    // A plugin hook's request covers, at most, this tool with these very arguments.
    if (exact && req.findings && !a.scope)
      a = {
        ...a,
        scope: {
          // The arguments whole (a cryptographic digest: argsDigest only binds a decision to its call).
          key: sha256Hex(JSON.stringify({ v: 1, hook: req.tool, args: req.args })),
          covers: `this exact ${req.tool} call (the same arguments)`,
          alwaysNot: 'a plugin asked for this approval',
        },
      };
    const covered = exact
      ? a.scope !== undefined && this.state.sessionScopes.includes(a.scope.key)
      : rules.every((r) => this.state.sessionRules.includes(r));
    // Allowed by policy, not by a decision about this call: a plugin hook may still ask for a person.
    if (mode === 'off' || a.allowlistedBy !== undefined || covered) return { run: true, approved: false };
    if (exact && a.unshowable) return { run: false, result: denied(a.unshowable) };

    const base = { approvalId: `ap-${uuid4().slice(0, 8)}`, callId: req.callId, tool: req.tool, command: req.command };
    if (mode === 'smart') {
      const verdict = await effects.judgeCommand({ command: req.command, findings: a.findings, model: req.model });
      const decidedAt = new Date().toISOString();
      if (verdict.answer === 'APPROVE') {
        this.record({ ...base, choice: 'once', source: 'smart', by: verdict.model, reason: verdict.reply, decidedAt });
        return { run: true, approved: true };
      }
      if (verdict.answer === 'DENY') {
        this.record({ ...base, choice: 'deny', source: 'smart', by: verdict.model, reason: verdict.reply, decidedAt });
        return {
          run: false,
          result: denied(
            `Smart approval denied this command (${verdict.reply}). Do not retry it; find another way or ask the user.`,
          ),
        };
      }
      // ESCALATE or anything unclear: a person decides.
    }
    return this.askPerson(base, req, a);
  }

  private async askPerson(
    base: Omit<PendingApproval, 'findings' | 'argsDigest' | 'askedAt' | 'expiresAt'>,
    req: GateRequest,
    a: CommandAssessment,
  ): Promise<GateOutcome> {
    const timeoutSeconds = req.timeoutSeconds ?? a.timeoutSeconds;
    const now = Date.now();
    const exact = patched(EXACT_SCOPE_PATCH);
    const pending: PendingApproval = {
      ...base,
      findings: a.findings,
      argsDigest: req.argsDigest,
      askedAt: new Date(now).toISOString(),
      expiresAt: new Date(now + timeoutSeconds * 1000).toISOString(),
      ...(exact ? { cwd: a.where ?? req.cwd } : {}),
      ...(exact && a.scope ? { scope: a.scope } : {}),
      ...(exact && a.changed?.length ? { changed: a.changed } : {}),
      // Views show the files the gate read apart from the command (src/approval/approval-view.ts).
      ...(a.readFiles ? { readFiles: a.readFiles } : {}),
    };
    this.state.pending = [...this.state.pending, pending];
    approvalAsked({ approvalId: pending.approvalId, tool: req.tool, expiresAtMs: now + timeoutSeconds * 1000 });
    if (a.notify) this.notices.send(pending);
    let arrived: boolean;
    try {
      arrived = await condition(() => this.decisions.has(pending.approvalId), timeoutSeconds * 1000);
    } catch (err) {
      // A cancelled run waits for nothing any more: listings (and their search attribute) must not say it does.
      if (isCancellation(err) && exact) this.removePending(pending.approvalId);
      throw err;
    }
    this.removePending(pending.approvalId);
    const decidedAt = new Date().toISOString();
    const waited = { approvalId: pending.approvalId, callId: req.callId, tool: req.tool, askedAtMs: now };
    if (!arrived) {
      approvalDecided({ ...waited, decidedAtMs: Date.parse(decidedAt), choice: 'deny', source: 'timeout' });
      this.record({
        ...base,
        choice: 'deny',
        source: 'timeout',
        reason: `no decision within ${timeoutSeconds} s`,
        decidedAt,
      });
      return {
        run: false,
        result: denied(
          `No one approved this command within ${timeoutSeconds} seconds, so it was not run (a timeout counts as a denial).`,
        ),
      };
    }
    const d = this.decisions.get(pending.approvalId)!;
    this.decisions.delete(pending.approvalId);
    const choice = exact ? applies(d.choice, pending.scope) : d.choice;
    approvalDecided({ ...waited, decidedAtMs: Date.parse(decidedAt), choice, source: 'person', by: d.by });
    this.record({
      ...base,
      choice,
      ...(choice !== d.choice ? { asked: d.choice } : {}),
      source: 'person',
      by: d.by,
      ...(d.claimedBy === undefined ? {} : { claimedBy: d.claimedBy }),
      reason: d.reason,
      decidedAt,
    });
    if (d.choice === 'deny') {
      return {
        run: false,
        result: denied(
          `The user denied this command${d.reason ? `: ${d.reason}` : ''}. Do not run it again; continue without it or ask the user.`,
        ),
      };
    }
    if (exact) {
      const scope = pending.scope;
      if ((choice === 'session' || choice === 'always') && scope)
        this.state.sessionScopes = [...this.state.sessionScopes.filter((k) => k !== scope.key), scope.key].slice(
          -KEEP_SESSION_SCOPES,
        );
      if (choice === 'always' && scope?.always) await effects.addToAllowlist({ entries: [scope.always] });
      return { run: true, approved: true };
    }
    const rules = a.findings.map((f) => f.rule);
    if (d.choice === 'session' || d.choice === 'always')
      this.state.sessionRules = [...new Set([...this.state.sessionRules, ...rules])];
    if (d.choice === 'always') await effects.addToAllowlist({ entries: rules.filter((r) => !r.startsWith('hook:')) });
    return { run: true, approved: true };
  }
}
