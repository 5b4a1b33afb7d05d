// `tether approval check|rules`, `tether approvals`, `tether approve`, `tether deny`: judge commands, list what
// waits for a person across running workflows, and decide from any terminal. Worker-only.
import { Option, type Command } from 'commander';
import { RULES } from '../approval/rules.js';
import { viewOfMemo, viewOfPending, type ApprovalView } from '../approval/approval-view.js';
import { thousands } from '../approval/approval-text.js';
import { visibleJson } from '../approval/visible-text.js';
import { listPendingApprovals } from '../visibility/pending-approvals.js';
import { queryRunState } from '../temporal/run-handle.js';
import type { Client } from '@temporalio/client';
import type { ApprovalChoice, PendingApproval } from '../common/approval-types.js';
import { runApprovalCheck, type CheckOptions } from './approval-check.js';
import { sendDecision, type DecideOutcome } from './decide.js';
import { CliError } from './errors.js';
import { withTemporal } from './temporal-client.js';

/** Kept here for callers of the approval commands (the gateway's inbox); it reads visibility, no worker needed. */
export { listPendingApprovals };

interface FormatOptions {
  workflowId?: string;
  /**
   * Show at most this many lines of a long text (its start and its end, the middle as one counted line); the
   * prompt then offers `v` to show all of it. Default: all of it.
   */
  maxLines?: number;
}

/** Lines of the text, or its start and end with the middle counted when there are more than `max`. */
function textLines(text: string, max: number | undefined): { lines: string[]; hidden: number } {
  const all = text.split('\n');
  if (max === undefined || all.length <= max) return { lines: all, hidden: 0 };
  const tail = Math.min(5, Math.floor(max / 4));
  const head = max - tail - 1;
  const hidden = all.length - head - tail;
  const chars = all.slice(head, all.length - tail).join('\n').length;
  return {
    lines: [
      ...all.slice(0, head),
      `⟨${thousands(hidden)} more lines, ${thousands(chars)} characters, not shown here: answer v to show all⟩`,
      ...all.slice(all.length - tail),
    ],
    hidden,
  };
}

/**
 * An approval as a person reads it: the text rendered once for every channel (control, bidi, invisible and
 * look-alike characters as escapes, long blank runs counted), continuation lines marked so they cannot pass for
 * findings, and what each choice gives, said before anyone chooses.
 */
export function formatApproval(view: ApprovalView, opts: FormatOptions = {}): string {
  const head = `${opts.workflowId ? `${opts.workflowId} ` : ''}${view.approvalId} · ${view.tool} · asked ${view.askedAt} · denied at ${view.expiresAt} unless decided`;
  const { lines } = textLines(view.text, opts.maxLines);
  const [first = '', ...more] = lines;
  const out = [head];
  // A network approval names its host first; the command below it is what was running when it connected.
  if (view.network !== undefined) out.push(`  network: ${view.network}`);
  if (view.cwd !== undefined) out.push(`  in ${view.cwd}`);
  if (view.changed?.length)
    out.push(`  (changed after it was judged or approved: ${view.changed.join(', ')}; shown below as it is now)`);
  out.push(`  $ ${first}`, ...more.map((l) => `  > ${l}`));
  if (view.hidden)
    out.push('  (it holds control, invisible or look-alike characters, shown above as \\x.. and \\u.... escapes)');
  if (view.collapsed) out.push('  (⟨N spaces⟩ and ⟨N blank lines⟩ stand for that many, counted)');
  if (view.redacted)
    out.push(
      '  (a secret value is shown as ⟨redacted⟩ in this listing: tether approvals --exact shows the exact text)',
    );
  if (view.shortened)
    out.push(
      `  (shortened in this listing: ${thousands(view.chars)} characters in all; tether approvals --exact shows them all)`,
    );
  out.push(...view.findings.map((f) => `  [${f.rule}] ${f.description}`));
  out.push('  choices:');
  for (const c of view.choices) out.push(`    ${c.choice.padEnd(8)}${c.offered ? '' : '(not offered) '}${c.gives}`);
  return out.join('\n');
}

/** Every pending approval whole, from each waiting run's state (the listing's runs, asked a few at a time). */
async function exactApprovals(
  client: Client,
): Promise<{ approvals: (PendingApproval & { workflowId: string })[]; unanswered: string[] }> {
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

/** What the CLI says a decision did: the choice that applied, and why when a wider one was narrowed. */
export function decisionLine(choice: ApprovalChoice, out: DecideOutcome): string {
  if (choice === 'deny') return 'denied';
  const applied = out.status === 'applied' && out.applies !== undefined ? out.applies : choice;
  return applied === choice
    ? `approved (${choice})`
    : `approved (${applied}: ${choice} is not offered for this approval, so it counts as ${applied})`;
}

function report(workflowId: string, approvalId: string, choice: ApprovalChoice, out: DecideOutcome): void {
  if (out.status === 'rejected') throw new CliError(`decision rejected: ${out.reason}`, 1);
  if (out.status === 'queued') process.stderr.write(`${out.note}\n`);
  process.stdout.write(
    `${decisionLine(choice, out)}: ${workflowId} ${approvalId}${out.status === 'queued' ? ' (queued: a wider choice than the approval allows is narrowed when it applies)' : ''}\n`,
  );
}

export function addApprovalCommands(program: Command): void {
  const approval = program.command('approval').description('Dangerous-command detection');
  approval
    .command('check')
    .description(
      'Print the verdict on a command (exit code 3 when it is dangerous), or on JSON lines from standard input',
    )
    .argument('[command...]', 'the command, as one argument or several words')
    .option('--json', 'print the verdict as JSON')
    .option(
      '--jsonl',
      'read one JSON-encoded command string per line on standard input; write one JSON verdict per line',
    )
    .option('--cwd <dir>', 'the project directory paths are judged against (default: the current directory)')
    .option(
      '--stdin <text>',
      "text given to the command on standard input (judged as the program's input: `sh`, `python3`, `psql`)",
    )
    .option('--language <language>', 'the words are a python or javascript program, judged as execute_code judges it')
    .action(async (words: string[], opts: CheckOptions) => {
      if (!opts.jsonl && words.length === 0)
        throw new CliError('give a command to check, or --jsonl to read commands from standard input', 2);
      process.exitCode = await runApprovalCheck(words, opts);
    });
  approval
    .command('rules')
    .description('List the rule ids (usable in command_allowlist) with their tier and description')
    .option('--json', 'print JSON')
    .action((opts: { json?: boolean }) => {
      const rules = [...RULES.values()];
      if (opts.json) process.stdout.write(`${JSON.stringify(rules, null, 2)}\n`);
      else for (const r of rules) process.stdout.write(`${r.id.padEnd(24)} ${r.tier.padEnd(9)} ${r.description}\n`);
    });

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
        const { approvals, unanswered } = await withTemporal((client) => exactApprovals(client));
        if (opts.json) process.stdout.write(`${visibleJson(approvals, 2)}\n`);
        else if (approvals.length === 0) process.stdout.write('no pending approvals\n');
        else
          process.stdout.write(
            `${approvals.map((a) => formatApproval(viewOfPending(a), { workflowId: a.workflowId })).join('\n\n')}\n`,
          );
        if (unanswered.length > 0)
          process.stderr.write(`not shown, no worker answered for: ${unanswered.join(', ')}\n`);
        return;
      }
      const { approvals, unanswered } = await withTemporal((client) => listPendingApprovals(client));
      if (opts.json) process.stdout.write(`${visibleJson(approvals, 2)}\n`);
      else if (approvals.length === 0) process.stdout.write('no pending approvals\n');
      else
        process.stdout.write(
          `${approvals.map((a) => formatApproval(viewOfMemo(a), { workflowId: a.workflowId })).join('\n\n')}\n`,
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
      const out = await withTemporal((client, settings) =>
        sendDecision(client, settings, workflowId, { approvalId, choice: opts.scope, by: 'cli' }),
      );
      report(workflowId, approvalId, opts.scope, out);
    });

  program
    .command('deny')
    .description('Deny a pending tool call: the model is told, with the reason')
    .argument('<workflowId>')
    .argument('<approvalId>')
    .option('--reason <text>', 'why (the model sees it)')
    .action(async (workflowId: string, approvalId: string, opts: { reason?: string }) => {
      const out = await withTemporal((client, settings) =>
        sendDecision(client, settings, workflowId, { approvalId, choice: 'deny', reason: opts.reason, by: 'cli' }),
      );
      report(workflowId, approvalId, 'deny', out);
    });
}
