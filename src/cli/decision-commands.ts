// `tether approvals`, `tether approve`, `tether deny`: list what waits for a person across running workflows, and
// decide from any terminal. Worker-only, and client-only: no worker, tool or parser code (test/cli-start.test.ts).
import { Option, type Command } from 'commander';
import { viewOfMemo, viewOfPending } from '../approval/approval-view.js';
import { visibleJson } from '../approval/visible-text.js';
import { listPendingApprovals } from '../visibility/pending-approvals.js';
import type { Client } from '@temporalio/client';
import type { ApprovalChoice, ApprovalDecision, PendingApproval } from '../common/approval-types.js';
import { decisionLine, formatApproval } from '../decisions/approval-format.js';
import type { DecideOutcome } from '../decisions/decide.js';
import { CliError } from './errors.js';
import { withFastReads } from './fast-reads.js';

/** A decision goes through the SDK's client (an update, or a signal when no worker runs): loaded for it alone. */
async function decide(workflowId: string, decision: ApprovalDecision): Promise<DecideOutcome> {
  const [{ sendDecision }, { withTemporal }] = await Promise.all([
    import('../decisions/decide.js'),
    import('./temporal-client.js'),
  ]);
  return withTemporal((client, settings) => sendDecision(client, settings, workflowId, decision));
}

/** Every pending approval whole, from each waiting run's state (the listing's runs, asked a few at a time). */
async function exactApprovals(
  client: Client,
): Promise<{ approvals: (PendingApproval & { workflowId: string })[]; unanswered: string[] }> {
  const { queryRunState } = await import('../temporal/run-handle.js');
  const listed = await listPendingApprovals(client);
  const runs = [...new Set(listed.approvals.map((a) => a.workflowId))];
  const approvals: (PendingApproval & { workflowId: string })[] = [];
  const unanswered = [...listed.unanswered];
  for (let i = 0; i < runs.length; i += 8)
    await Promise.all(
      runs.slice(i, i + 8).map(async (workflowId) => {
        const state = await queryRunState(client, client.workflow.getHandle(workflowId), 3_000);
        if (!state) unanswered.push(workflowId);
        for (const p of state?.pendingApprovals ?? []) approvals.push({ ...p, workflowId });
      }),
    );
  return { approvals, unanswered };
}

function report(workflowId: string, approvalId: string, choice: ApprovalChoice, out: DecideOutcome): void {
  if (out.status === 'rejected') throw new CliError(`decision rejected: ${out.reason}`, 1);
  if (out.status === 'queued') process.stderr.write(`${out.note}\n`);
  // Queued, the decision's scope is not known yet: only a wider choice (session, always) may still be narrowed.
  const queued =
    out.status !== 'queued'
      ? ''
      : choice === 'session' || choice === 'always'
        ? ' (queued: a wider choice than the approval allows is narrowed when it applies)'
        : ' (queued)';
  process.stdout.write(`${decisionLine(choice, out)}: ${workflowId} ${approvalId}${queued}\n`);
}

export function addDecisionCommands(program: Command): void {
  program
    .command('approvals')
    .description('List tool calls waiting for a decision, across running agent runs')
    .option('--json', 'print JSON')
    .option(
      '--exact',
      'show each approval whole and exactly (secrets not redacted), read from its run (needs a worker; the listing reads visibility)',
    )
    .action(async (opts: { json?: boolean; exact?: boolean }) => {
      if (opts.exact) {
        // Queries to each run: the SDK's client, loaded for this option alone.
        const { withTemporal } = await import('./temporal-client.js');
        const { approvals, unanswered } = await withTemporal((client) => exactApprovals(client));
        if (opts.json) process.stdout.write(`${visibleJson(approvals, 2)}\n`);
        else if (approvals.length === 0) process.stdout.write('no pending approvals\n');
        else
          process.stdout.write(
            `${approvals.map((a) => formatApproval(viewOfPending(a), { workflowId: a.workflowId, reads: 'show' })).join('\n\n')}\n`,
          );
        if (unanswered.length > 0)
          process.stderr.write(`not shown, no worker answered for: ${unanswered.join(', ')}\n`);
        return;
      }
      const { approvals, unanswered } = await withFastReads(listPendingApprovals, listPendingApprovals);
      if (opts.json) process.stdout.write(`${visibleJson(approvals, 2)}\n`);
      else if (approvals.length === 0) process.stdout.write('no pending approvals\n');
      else
        process.stdout.write(
          `${approvals.map((a) => formatApproval(viewOfMemo(a), { workflowId: a.workflowId, unfold: 'tether approvals --exact' })).join('\n\n')}\n`,
        );
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
        'once: this call; session: also this exact call (same command, directory, input and files) for the rest of the run; always: also add this exact command in this directory to command_allowlist (the listing says what each gives; a wider choice than an approval allows is narrowed)',
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
