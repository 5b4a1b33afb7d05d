// Approval activities: the verdict on a command with the allowlist and policy, smart approval through the model,
// the webhook for pending approvals, and writing the permanent allowlist. Worker-only.
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { AllowlistBook } from '../approval/allowlist-book.js';
import { describeEntry } from '../common/allowlist.js';
import { assess } from '../approval/assess.js';
import { SIGNATURE_HEADER, signBody } from '../approval/signature.js';
import { readSmartAnswer, smartPrompt } from '../approval/smart.js';
import type { TetherConfig } from '../config/config.js';
import type { Logger } from '../logging/logger.js';
import type {
  AllowlistEntry,
  ApprovalFinding,
  CommandAssessment,
  NoticeDelivery,
  PendingApproval,
  SmartVerdict,
} from '../common/approval-types.js';
import { withHeartbeat } from './heartbeat.js';
import type { CompleteFn } from './model.js';
import { visibleJson } from '../approval/visible-text.js';
import { viewOfPending } from '../approval/approval-view.js';
import { derivedRenderer } from '../approval/approval-text.js';

interface ApprovalActivityDeps {
  config: TetherConfig;
  /** command_allowlist as this worker holds it; `always` decisions are added to it (and to its config.yaml). */
  allowlist: AllowlistBook;
  log: Logger;
  complete: CompleteFn;
}

export function createApprovalActivities(deps: ApprovalActivityDeps) {
  const { config, allowlist, log } = deps;

  async function assessCommand(input: { command: string; cwd: string }): Promise<CommandAssessment> {
    const { verdict, allowlistedBy, scope } = await assess(input.command, input.cwd, allowlist.entries());
    return {
      dangerous: verdict.dangerous,
      tier: verdict.tier,
      findings: verdict.findings,
      allowlistedBy,
      ...(scope ? { scope } : {}),
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
    // The log is a view others may read: the command and the judge's reply (which may quote it) are redacted with
    // the command's own secret values, as every text derived from a command is.
    const shown = derivedRenderer(input.command, true);
    log.info(
      { command: shown(input.command).text, answer: verdict.answer, reply: shown(verdict.reply).text, model },
      'smart approval answered',
    );
    return verdict;
  }

  async function notifyApproval(input: { approval: PendingApproval }): Promise<NoticeDelivery> {
    const url = config.approvals.webhook_url;
    // Another worker of the deployment asked for it: workers that disagree about the webhook are misconfigured.
    if (!url)
      return { delivered: false, reason: 'approvals.webhook_url is not set on the worker that took the notice' };
    const info = Context.current().info;
    // `view` is what a chat message should show (the one rendering every channel uses, with what each choice
    // gives); `approval` is the exact record; visibleJson writes bidi and invisible characters as escapes.
    const view = viewOfPending(input.approval);
    const body = visibleJson({
      type: 'approval.pending',
      workflowId: info.workflowExecution?.workflowId,
      approval: input.approval,
      commandVisible: view.text,
      view,
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
    // Retried (by the workflow's retry policy, with backoff) until the endpoint answers 2xx.
    if (!res.ok)
      throw ApplicationFailure.retryable(`approval webhook ${url} answered HTTP ${res.status}`, 'Approval.Webhook');
    return { delivered: true, status: res.status };
  }

  /**
   * `always`: this worker allows the entries from now on, and writes them to its config.yaml for the next start
   * (other workers read them when they start). A file that cannot be written is logged: the decision stands here.
   */
  async function addToAllowlist(input: { entries: AllowlistEntry[] }): Promise<void> {
    try {
      const added = await allowlist.add(input.entries);
      log.info({ configFile: allowlist.file, added: added.map(describeEntry) }, 'command_allowlist updated');
    } catch (err) {
      log.error(
        { configFile: allowlist.file, err: (err as Error).message },
        'an always approval applies in this worker but could not be written to config.yaml',
      );
    }
  }

  return { assessCommand, judgeCommand, notifyApproval, addToAllowlist };
}
