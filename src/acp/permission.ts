// Approvals as ACP permission requests: the options an editor shows, and its answer as a tether decision. Worker-only.
import type {
  AgentContext,
  PermissionOption,
  RequestPermissionOutcome,
  SessionId,
  ToolCallUpdate,
} from '@agentclientprotocol/sdk';
import { networkTargetOf } from '../common/egress-types.js';
import type { PromptAnswer } from '../cli/approval-prompt.js';
import type { ApprovalAsker } from '../cli/follow.js';
import type { Logger } from '../logging/logger.js';
import type { ApprovalChoice, PendingApproval } from '../common/approval-types.js';

/** tether's four choices; ACP has no "session" kind, so both wider grants are allow_always, told apart by their names. */
const PERMISSION_OPTIONS: readonly PermissionOption[] = [
  { optionId: 'once', name: 'Allow once', kind: 'allow_once' },
  { optionId: 'session', name: 'Allow for this session (this rule, until the run ends)', kind: 'allow_always' },
  { optionId: 'always', name: 'Always allow (adds the rule to command_allowlist)', kind: 'allow_always' },
  { optionId: 'deny', name: 'Reject', kind: 'reject_once' },
];

const CHOICES: Readonly<Record<string, ApprovalChoice>> = {
  once: 'once',
  session: 'session',
  always: 'always',
  deny: 'deny',
};

/** The decision an editor's answer stands for; null when it cancelled (the approval stays pending). */
function answerFor(outcome: RequestPermissionOutcome): PromptAnswer | null {
  if (outcome.outcome !== 'selected') return null;
  const choice = Object.hasOwn(CHOICES, outcome.optionId) ? CHOICES[outcome.optionId] : undefined;
  if (!choice) return null;
  return choice === 'deny' ? { choice, reason: 'rejected in the editor' } : { choice };
}

/** A network approval as the editor shows it: a fetch of HOST:PORT, with the command that made the connection. */
function networkToolCall(p: PendingApproval): ToolCallUpdate {
  const target = networkTargetOf(p)!;
  return {
    // A background process's connection belongs to no tool call: the approval's own id stands in.
    toolCallId: p.callId || p.approvalId,
    title: `network: ${target}${p.command ? ` (asked by: ${p.command})` : ''}`,
    kind: 'fetch',
    status: 'pending',
    rawInput: { host: p.host, port: p.port, command: p.command, approvalId: p.approvalId, expiresAt: p.expiresAt },
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
    const findings = p.findings.map((f) => `[${f.rule}] ${f.description}`).join('; ');
    try {
      const res = await this.client.request(
        'session/request_permission',
        {
          sessionId: this.sessionId,
          toolCall:
            networkTargetOf(p) !== undefined
              ? networkToolCall(p)
              : {
                  toolCallId: p.callId,
                  title: `${p.tool}: ${p.command}${findings ? ` (${findings})` : ''}`,
                  kind: 'execute',
                  status: 'pending',
                  rawInput: { command: p.command, approvalId: p.approvalId, expiresAt: p.expiresAt },
                },
          options: [...PERMISSION_OPTIONS],
        },
        { cancellationSignal: this.cancelled },
      );
      return answerFor(res.outcome);
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
