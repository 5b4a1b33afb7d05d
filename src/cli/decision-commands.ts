// `tether approvals`, `tether approve`, `tether deny`: list what waits for a person across running workflows, and
// decide from any terminal. Worker-only, and client-only: no worker, tool or parser code (test/cli-start.test.ts).
import { Option, type Command } from 'commander';
import { visibleJson } from '../approval/visible-text.js';
import { listPendingApprovals } from '../visibility/pending-approvals.js';
import type { ApprovalChoice, ApprovalDecision } from '../common/approval-types.js';
import { formatApproval } from './approval-format.js';
import type { DecideOutcome } from './decide.js';
import { CliError } from './errors.js';
import { withFastReads } from './fast-reads.js';

/** A decision goes through the SDK's client (an update, or a signal when no worker runs): loaded for it alone. */
async function decide(workflowId: string, decision: ApprovalDecision): Promise<DecideOutcome> {
  const [{ sendDecision }, { withTemporal }] = await Promise.all([
    import('./decide.js'),
    import('./temporal-client.js'),
  ]);
  return withTemporal((client, settings) => sendDecision(client, settings, workflowId, decision));
}

function report(workflowId: string, approvalId: string, choice: ApprovalChoice, out: DecideOutcome): void {
  if (out.status === 'rejected') throw new CliError(`decision rejected: ${out.reason}`, 1);
  if (out.status === 'queued') process.stderr.write(`${out.note}\n`);
  process.stdout.write(
    `${choice === 'deny' ? 'denied' : `approved (${choice})`}: ${workflowId} ${approvalId}${out.status === 'queued' ? ' (queued)' : ''}\n`,
  );
}

export function addDecisionCommands(program: Command): void {
  program
    .command('approvals')
    .description('List tool calls waiting for a decision, across running agent runs')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      const { approvals, unanswered } = await withFastReads(listPendingApprovals, listPendingApprovals);
      if (opts.json) process.stdout.write(`${visibleJson(approvals, 2)}\n`);
      else if (approvals.length === 0) process.stdout.write('no pending approvals\n');
      else process.stdout.write(`${approvals.map((a) => formatApproval(a, a.workflowId)).join('\n\n')}\n`);
      if (unanswered.length > 0)
        process.stderr.write(
          `not listed, no worker answered for: ${unanswered.join(', ')} (runs started by an older worker, or not yet picked up)\n`,
        );
    });

  program
    .command('approve')
    .description('Approve a pending tool call')
    .argument('<workflowId>')
    .argument('<approvalId>')
    .addOption(
      new Option(
        '--scope <scope>',
        'once: this call; session: this rule for the rest of the run; always: add the rule to command_allowlist',
      )
        .choices(['once', 'session', 'always'])
        .default('once'),
    )
    .action(async (workflowId: string, approvalId: string, opts: { scope: ApprovalChoice }) => {
      const out = await decide(workflowId, { approvalId, choice: opts.scope, by: 'cli' });
      report(workflowId, approvalId, opts.scope, out);
    });

  program
    .command('deny')
    .description('Deny a pending tool call: the model is told, with the reason')
    .argument('<workflowId>')
    .argument('<approvalId>')
    .option('--reason <text>', 'why (the model sees it)')
    .action(async (workflowId: string, approvalId: string, opts: { reason?: string }) => {
      const out = await decide(workflowId, { approvalId, choice: 'deny', reason: opts.reason, by: 'cli' });
      report(workflowId, approvalId, 'deny', out);
    });
}
