// Approvals as ACP permission requests: the approval rendered once as every channel renders it (title, content and
// rawInput carry no raw control, bidi or invisible character), the options an editor shows (only those the approval
// allows, each with its own id, name and kind), and its answer as a tether decision. Worker-only.
import type {
  AgentContext,
  PermissionOption,
  RequestPermissionOutcome,
  RequestPermissionRequest,
  SessionId,
  ToolCallUpdate,
} from '@agentclientprotocol/sdk';
import { renderApprovalText, splitShown } from '../approval/approval-text.js';
import { viewOfPending, type ApprovalView } from '../approval/approval-view.js';
import { formatApproval } from '../decisions/approval-format.js';
import { networkTargetOf } from '../common/egress-types.js';
import type { PromptAnswer } from '../cli/approval-prompt.js';
import type { ApprovalAsker } from '../decisions/follow.js';
import type { Logger } from '../logging/logger.js';
import type { ApprovalChoice, PendingApproval } from '../common/approval-types.js';

/** A title is one line: the start of the command, the rest in the content. */
const TITLE_CHARS = 200;

/**
 * ACP has four kinds, two of them allowing: `allow_once` is once, and `allow_always` is this session (the run), so
 * a client that picks by kind gets exactly that. tether's `always` (adding to command_allowlist) has no kind of its
 * own and is not offered here: `tether approve --scope always` gives it.
 */
function options(view: ApprovalView): PermissionOption[] {
  const offered = new Set(view.choices.filter((c) => c.offered).map((c) => c.choice));
  return [
    { optionId: 'once', name: 'Allow once', kind: 'allow_once' },
    ...(offered.has('session')
      ? [
          {
            optionId: 'session',
            name: 'Allow this exact call for the rest of this session',
            kind: 'allow_always',
          } as const,
        ]
      : []),
    { optionId: 'deny', name: 'Reject', kind: 'reject_once' },
  ];
}

const CHOICES: Readonly<Record<string, ApprovalChoice>> = { once: 'once', session: 'session', deny: 'deny' };

/** The decision an editor's answer stands for; null when it cancelled or chose no option offered. */
function answerFor(outcome: RequestPermissionOutcome, offered: readonly PermissionOption[]): PromptAnswer | null {
  if (outcome.outcome !== 'selected') return null;
  if (!offered.some((o) => o.optionId === outcome.optionId)) return null;
  const choice = Object.hasOwn(CHOICES, outcome.optionId) ? CHOICES[outcome.optionId] : undefined;
  if (!choice) return null;
  return choice === 'deny' ? { choice, reason: 'rejected in the editor' } : { choice };
}

/**
 * The request's tool call: one rendering of the approval for its title, content and raw input. A command is an
 * execute call; a network approval is a fetch of HOST:PORT, with the command that made the connection.
 */
export function permissionToolCall(p: PendingApproval): { view: ApprovalView; toolCall: ToolCallUpdate } {
  const view = viewOfPending(p);
  // The title is what the model asked to run; what the gate read to judge it is in the content, apart.
  const { asked } = splitShown(p.command, p.readFiles);
  const oneLine = renderApprovalText(asked, { newlines: 'escape' }).text;
  const short =
    oneLine.length > TITLE_CHARS
      ? `${oneLine.slice(0, TITLE_CHARS - 1)}… (${asked.length} characters: see the details)`
      : oneLine;
  const target = networkTargetOf(p);
  const shownTarget = target === undefined ? undefined : renderApprovalText(target, { newlines: 'escape' }).text;
  return {
    view,
    toolCall: {
      // A background process's connection belongs to no tool call: the approval's own id stands in.
      toolCallId: p.callId || p.approvalId,
      title:
        shownTarget === undefined
          ? `${view.tool}: ${short}`
          : `network: ${shownTarget}${short ? ` (asked by: ${short})` : ''}`,
      kind: target === undefined ? 'execute' : 'fetch',
      status: 'pending',
      content: [{ type: 'content', content: { type: 'text', text: formatApproval(view, { reads: 'show' }) } }],
      rawInput: {
        ...(target !== undefined ? { host: renderApprovalText(p.host ?? '').text, port: p.port } : {}),
        command: view.text,
        ...(view.cwd !== undefined ? { cwd: view.cwd } : {}),
        approvalId: p.approvalId,
        expiresAt: p.expiresAt,
        findings: view.findings,
        choices: view.choices,
      },
    },
  };
}

/** Asks the editor with session/request_permission; one that is gone leaves the approval pending, durably. */
export class EditorAsker implements ApprovalAsker {
  private gone = false;

  constructor(
    private readonly client: AgentContext,
    private readonly sessionId: SessionId,
    private readonly log: Logger,
    private readonly cancelled: AbortSignal,
  ) {}

  get exhausted(): boolean {
    return this.gone;
  }

  async ask(p: PendingApproval): Promise<PromptAnswer | null> {
    const { view, toolCall } = permissionToolCall(p);
    const offered = options(view);
    try {
      const params: RequestPermissionRequest = { sessionId: this.sessionId, toolCall, options: offered };
      const res = await this.client.request('session/request_permission', params, {
        cancellationSignal: this.cancelled,
      });
      return answerFor(res.outcome, offered);
    } catch (err) {
      this.gone = true;
      this.log.warn(
        { approvalId: p.approvalId, error: (err as Error).message },
        'the editor did not answer a permission request; the approval stays pending',
      );
      return null;
    }
  }
}
