// A pending approval as every channel shows it (the CLI prompt, `tether approvals`, the inbox, ACP, the webhook):
// its text rendered once (approval-text.ts), its findings, and what each choice would give, said before the person
// chooses. Built from the run's state (the exact text) or from its visibility memo (bounded and redacted). Pure.
import type { ApprovalChoice, PendingApproval } from '../common/approval-types.js';
import { networkTargetOf } from '../common/egress-types.js';
import type { MemoApproval } from '../common/search-attributes.js';
import { renderApprovalText } from './approval-text.js';

export interface ChoiceView {
  choice: ApprovalChoice;
  /** False: choosing it gives `gives` only (a narrower approval), as `note` says. */
  offered: boolean;
  /** What it gives, in words. */
  gives: string;
}

export interface ApprovalView {
  approvalId: string;
  callId: string;
  tool: string;
  argsDigest: string;
  askedAt: string;
  expiresAt: string;
  /** The text as rendered: escapes, counted blank runs, maybe ⟨redacted⟩ spans; cut when `shortened`. */
  text: string;
  /** The whole text's length in characters. */
  chars: number;
  shortened: boolean;
  redacted: boolean;
  hidden: boolean;
  collapsed: boolean;
  findings: { rule: string; tier: string; description: string }[];
  cwd?: string;
  /** Files that changed after an earlier verdict on this call: the text shows their new content. */
  changed?: string[];
  /** HOST:PORT of a network approval (what is approved; the text is the command that connected). */
  network?: string;
  choices: ChoiceView[];
}

interface ScopeWords {
  covers: string;
  onceOnly?: string;
  always?: unknown;
  alwaysNot?: string;
}

/** One line, every hidden character escaped: the scope names paths and directories the model chose. */
const words = (text: string | undefined): string | undefined =>
  text === undefined ? undefined : renderApprovalText(text, { newlines: 'escape' }).text;

/** What once, session, always and deny give for an approval with this scope (none: a run recorded before scopes). */
export function choiceViews(raw: ScopeWords | undefined): ChoiceView[] {
  const scope = raw && {
    ...raw,
    covers: words(raw.covers)!,
    onceOnly: words(raw.onceOnly),
    alwaysNot: words(raw.alwaysNot),
  };
  const once: ChoiceView = { choice: 'once', offered: true, gives: 'run this call, once' };
  const deny: ChoiceView = {
    choice: 'deny',
    offered: true,
    gives: 'do not run it; the model is told, with your reason',
  };
  if (!scope)
    return [
      once,
      {
        choice: 'session',
        offered: true,
        gives: 'also every call with the same findings (rules), for the rest of this run',
      },
      { choice: 'always', offered: true, gives: 'also add those rules to command_allowlist, for every run' },
      deny,
    ];
  if (scope.onceOnly)
    return [
      once,
      { choice: 'session', offered: false, gives: `once only: ${scope.onceOnly}` },
      { choice: 'always', offered: false, gives: `once only: ${scope.onceOnly}` },
      deny,
    ];
  const session = `also ${scope.covers}, for the rest of this run`;
  return [
    once,
    { choice: 'session', offered: true, gives: session },
    scope.always
      ? {
          choice: 'always',
          offered: true,
          gives: `also ${scope.covers}, in every later run of this worker and after its restart (added to command_allowlist)`,
        }
      : {
          choice: 'always',
          offered: false,
          gives: `the same as session (${scope.alwaysNot ?? 'not offered'}): ${session}`,
        },
    deny,
  ];
}

/** The host a network approval is about, rendered. */
function networkOf(a: { tool: string; findings: readonly { rule: string }[] }): { network?: string } {
  const target = networkTargetOf(a);
  return target === undefined ? {} : { network: renderApprovalText(target, { newlines: 'escape' }).text };
}

/** One line of a finding's description. */
const findingLine = (d: string, redact: boolean): string => renderApprovalText(d, { redact, newlines: 'escape' }).text;

/** From the run's state: the whole text (redacted only where the view is shared). */
export function viewOfPending(p: PendingApproval, opts: { redact?: boolean } = {}): ApprovalView {
  const r = renderApprovalText(p.command, { redact: opts.redact });
  return {
    approvalId: p.approvalId,
    callId: p.callId,
    tool: renderApprovalText(p.tool, { newlines: 'escape' }).text,
    argsDigest: p.argsDigest,
    askedAt: p.askedAt,
    expiresAt: p.expiresAt,
    text: r.text,
    chars: p.command.length,
    shortened: false,
    redacted: r.redacted,
    hidden: r.hidden,
    collapsed: r.collapsed,
    findings: p.findings.map((f) => ({
      rule: f.rule,
      tier: f.tier,
      description: findingLine(f.description, !!opts.redact),
    })),
    ...(p.cwd !== undefined ? { cwd: renderApprovalText(p.cwd, { newlines: 'escape' }).text } : {}),
    ...(p.changed ? { changed: p.changed.map((f) => renderApprovalText(f, { newlines: 'escape' }).text) } : {}),
    ...networkOf(p),
    choices: choiceViews(p.scope),
  };
}

/** From the visibility memo: already rendered, bounded and redacted by the run. */
export function viewOfMemo(m: MemoApproval): ApprovalView {
  return {
    approvalId: m.approvalId,
    callId: m.callId,
    tool: m.tool,
    argsDigest: m.argsDigest,
    askedAt: m.askedAt,
    expiresAt: m.expiresAt,
    text: m.command,
    chars: m.chars ?? m.command.length,
    shortened: m.shortened === true,
    redacted: m.redacted === true,
    hidden: m.hidden === true,
    collapsed: m.collapsed === true,
    findings: m.findings,
    ...(m.cwd !== undefined ? { cwd: m.cwd } : {}),
    ...(m.changed ? { changed: m.changed } : {}),
    ...networkOf(m),
    choices: choiceViews(m.scope),
  };
}
