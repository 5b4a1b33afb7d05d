// Approval activities: the verdict on a command with the allowlist and policy, smart approval through the model,
// the webhook for pending approvals, and writing the permanent allowlist. Worker-only.
import { ApplicationFailure, Context } from '@temporalio/activity';
import { addToAllowlistFile } from '../approval/allowlist-file.js';
import { assess } from '../approval/assess.js';
import { SIGNATURE_HEADER, signBody } from '../approval/signature.js';
import { readSmartAnswer, smartPrompt } from '../approval/smart.js';
import type { TetherConfig } from '../config/config.js';
import type { Logger } from '../logging/logger.js';
import type { ApprovalFinding, CommandAssessment, PendingApproval, SmartVerdict } from '../common/approval-types.js';
import { withHeartbeat } from './heartbeat.js';
import type { CompleteFn } from './model.js';
import { visibleJson, visibleText } from '../approval/visible-text.js';

interface ApprovalActivityDeps {
  config: TetherConfig;
  /** config.yaml, where `always` decisions are written. */
  configFile: string;
  log: Logger;
  complete: CompleteFn;
}

export function createApprovalActivities(deps: ApprovalActivityDeps) {
  const { config, configFile, log } = deps;

  async function assessCommand(input: { command: string; cwd: string }): Promise<CommandAssessment> {
    const { verdict, allowlistedBy } = await assess(input.command, input.cwd, config, configFile, (err) =>
      log.warn({ configFile, err: err.message }, 'could not read command_allowlist; using the start-up configuration'),
    );
    return {
      dangerous: verdict.dangerous,
      tier: verdict.tier,
      findings: verdict.findings,
      allowlistedBy,
      mode: config.approvals.mode,
      timeoutSeconds: config.approvals.timeout,
      notify: config.approvals.webhook_url !== undefined,
    };
  }

  async function judgeCommand(input: {
    command: string;
    findings: ApprovalFinding[];
    model: string;
  }): Promise<SmartVerdict> {
    const model = config.approvals.smart_model ?? input.model;
    const reply = await withHeartbeat((signal) =>
      deps.complete({ model, messages: smartPrompt(input.command, input.findings), tools: [] }, signal),
    );
    const verdict = readSmartAnswer(reply.message.content, model);
    log.info(
      { command: input.command, answer: verdict.answer, reply: verdict.reply, model },
      'smart approval answered',
    );
    return verdict;
  }

  async function notifyApproval(input: { approval: PendingApproval }): Promise<void> {
    const url = config.approvals.webhook_url;
    if (!url) return;
    const info = Context.current().info;
    // commandVisible is what a chat message should show; visibleJson writes bidi and invisible characters as escapes.
    const body = visibleJson({
      type: 'approval.pending',
      workflowId: info.workflowExecution?.workflowId,
      approval: input.approval,
      commandVisible: visibleText(input.approval.command),
    });
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (config.approvals.secret) headers[SIGNATURE_HEADER] = signBody(config.approvals.secret, body);
    let res: Response;
    try {
      res = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(10_000) });
    } catch (err) {
      throw ApplicationFailure.retryable(
        `approval webhook ${url} unreachable: ${(err as Error).message}`,
        'Approval.Webhook',
      );
    }
    if (!res.ok)
      throw ApplicationFailure.retryable(`approval webhook ${url} answered HTTP ${res.status}`, 'Approval.Webhook');
  }

  async function addToAllowlist(input: { entries: string[] }): Promise<void> {
    try {
      const added = await addToAllowlistFile(configFile, input.entries);
      log.info({ configFile, added }, 'command_allowlist updated');
    } catch (err) {
      throw ApplicationFailure.nonRetryable((err as Error).message, 'Config.Invalid');
    }
  }

  return { assessCommand, judgeCommand, notifyApproval, addToAllowlist };
}
