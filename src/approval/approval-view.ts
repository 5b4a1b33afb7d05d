// A pending approval as every channel shows it (the CLI prompt, `tether approvals`, the inbox, ACP, the webhook):
// its text rendered once (approval-text.ts), its findings, and what each choice would give, said before the person
// chooses. Built from the run's state (the exact text) or from its visibility memo (bounded and redacted). Pure.
import type { ApprovalChoice, ApprovalScope, PendingApproval } from '../common/approval-types.js';
import { networkTargetOf } from '../common/egress-types.js';
import type { MemoApproval } from '../common/search-attributes.js';
import { derivedRenderer, lineCount, renderApprovalText, splitShown } from './approval-text.js';

export interface ChoiceView {
  choice: ApprovalChoice;
  /** False: choosing it gives `gives` only (a narrower approval), as `note` says. */
  offered: boolean;
  /** What it gives, in words. */
  gives: string;
}

/** A file the gate read to judge the call (a config file, a script it runs): shown apart from the command, folded. */
export interface ReadView {
  /** As rendered (one line). */
  path: string;
  lines: number;
  chars: number;
  /** The content as rendered (tabs and line ends as they are); absent where only names are kept (the memo). */
  text?: string;
}

export interface ApprovalView {
  approvalId: string;
  callId: string;
  tool: string;
  argsDigest: string;
  askedAt: string;
  expiresAt: string;
  /**
   * What the model asked to run (the command and its standard input), as rendered: escapes, counted blank runs,
   * maybe ⟨redacted⟩ spans; cut when `shortened`.
   */
  text: string;
  /** The whole text's length in characters. */
  chars: number;
  shortened: boolean;
  redacted: boolean;
  /** The command, or a file it reads, holds characters that could deceive (never just tabs or line ends). */
  hidden: boolean;
  collapsed: boolean;
  /** What the gate read to judge it, apart from the command (empty: it read nothing, or a run recorded before). */
  reads: ReadView[];
  findings: { rule: string; tier: string; description: string }[];
  cwd?: string;
  /** Files that changed after an earlier verdict on this call: the text shows their new content. */
  changed?: string[];
  /** HOST:PORT of a network approval (what is approved; the text is the command that connected). */
  network?: string;
  choices: ChoiceView[];
}

/** A scope in the run's state, or as its memo keeps it (where `always` is only `true`). */
type ScopeWords = Pick<ApprovalScope, 'covers' | 'onceOnly' | 'alwaysNot'> & { always?: unknown };

/** One line, every hidden character escaped: the scope, a tool's name and a host are the model's choice. */
const oneLine = (text: string): string => renderApprovalText(text, { newlines: 'escape' }).text;
const words = (text: string | undefined): string | undefined => (text === undefined ? undefined : oneLine(text));

/** `why` without the list of files `covers` names already (session's line says it; once is enough). */
function saidOnce(why: string, covers: string): string {
  const listed = /while (.+) (?:stays|stay) exactly as shown/.exec(covers)?.[1];
  return listed && listed.length > 20 && why.includes(listed) ? why.replace(listed, 'the files session names') : why;
}

/** What once, session, always and deny give for an approval with this scope (none: a run recorded before scopes). */
export function choiceViews(raw: ScopeWords | undefined): ChoiceView[] {
  const scope = raw && {
    ...raw,
    covers: words(raw.covers)!,
    onceOnly: words(raw.onceOnly),
    alwaysNot: words(raw.alwaysNot),
  };
  const view = (choice: ApprovalChoice, offered: boolean, gives: string): ChoiceView => ({ choice, offered, gives });
  const choices = (session: ChoiceView, always: ChoiceView): ChoiceView[] => [
    view('once', true, 'run this call, once'),
    session,
    always,
    view('deny', true, 'do not run it; the model is told, with your reason'),
  ];
  if (!scope)
    return choices(
      view('session', true, 'also every call with the same findings (rules), for the rest of this run'),
      view('always', true, 'also add those rules to command_allowlist, for every run'),
    );
  if (scope.onceOnly) {
    const why = `once only: ${scope.onceOnly}`;
    return choices(view('session', false, why), view('always', false, why));
  }
  const session = view('session', true, `also ${scope.covers}, for the rest of this run`);
  if (scope.always) {
    const gives = `also ${scope.covers}, in every later run of this worker and after its restart (added to command_allowlist)`;
    return choices(session, view('always', true, gives));
  }
  // Said once, under session: repeating what it covers made long lists read twice.
  return choices(
    session,
    view('always', false, `the same as session (${saidOnce(scope.alwaysNot ?? 'not offered', scope.covers)})`),
  );
}

/** The fields a view shows as the run keeps them, the host of a network approval, and the choices. */
function common(a: PendingApproval | MemoApproval) {
  const { approvalId, callId, argsDigest, askedAt, expiresAt } = a;
  const target = networkTargetOf(a);
  const network = target === undefined ? {} : { network: oneLine(target) };
  return { approvalId, callId, argsDigest, askedAt, expiresAt, ...network, choices: choiceViews(a.scope) };
}

/** From the run's state: the whole text (redacted only where the view is shared). */
export function viewOfPending(p: PendingApproval, opts: { redact?: boolean } = {}): ApprovalView {
  const redact = !!opts.redact;
  const derived = derivedRenderer(p.command, redact);
  const { asked, files } = splitShown(p.command, p.readFiles);
  const r = renderApprovalText(asked, { redact });
  const reads = files.map((f) => ({
    path: derived(f.path),
    content: derived(f.content, { newlines: 'keep', whitespace: 'file' }),
    raw: f.content,
  }));
  return {
    ...common(p),
    tool: oneLine(p.tool),
    text: r.text,
    chars: asked.length,
    shortened: false,
    redacted: r.redacted || reads.some((x) => x.content.redacted || x.path.redacted),
    hidden: r.hidden || reads.some((x) => x.content.hidden || x.path.hidden),
    collapsed: r.collapsed || reads.some((x) => x.content.collapsed),
    reads: reads.map((x) => ({
      path: x.path.text,
      lines: lineCount(x.raw),
      chars: x.raw.length,
      text: x.content.text,
    })),
    findings: p.findings.map((f) => ({ rule: f.rule, tier: f.tier, description: derived(f.description).text })),
    ...(p.cwd !== undefined ? { cwd: derived(p.cwd).text } : {}),
    ...(p.changed ? { changed: p.changed.map((f) => derived(f).text) } : {}),
  };
}

/** From the visibility memo: already rendered, bounded and redacted by the run. */
export function viewOfMemo(m: MemoApproval): ApprovalView {
  return {
    ...common(m),
    tool: m.tool,
    text: m.command,
    chars: m.chars ?? m.command.length,
    shortened: m.shortened === true,
    redacted: m.redacted === true,
    hidden: m.hidden === true,
    collapsed: m.collapsed === true,
    reads: (m.reads ?? []).map((r) => ({ path: r.path, lines: r.lines, chars: r.chars })),
    findings: m.findings,
    ...(m.cwd !== undefined ? { cwd: m.cwd } : {}),
    ...(m.changed ? { changed: m.changed } : {}),
  };
}
