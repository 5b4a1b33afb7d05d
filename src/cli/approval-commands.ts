// `tether approval check|rules`, `tether approvals`, `tether approve`, `tether deny`: judge commands, list what
// waits for a person across running workflows, and decide from any terminal. Worker-only.
import { Option, type Command } from 'commander';
import { RULES } from '../approval/rules.js';
import { hasHiddenCharacters, visibleJson, visibleText } from '../approval/visible-text.js';
import { listPendingApprovals } from '../visibility/pending-approvals.js';
import type { ApprovalChoice, PendingApproval } from '../common/approval-types.js';
import { networkTargetOf } from '../common/egress-types.js';
import type { MemoApproval } from '../common/search-attributes.js';
import { runApprovalCheck, type CheckOptions } from './approval-check.js';
import { sendDecision, type DecideOutcome } from './decide.js';
import { CliError } from './errors.js';
import { withTemporal } from './temporal-client.js';

/** Kept here for callers of the approval commands (the gateway's inbox); it reads visibility, no worker needed. */
export { listPendingApprovals };

/**
 * An approval as a person reads it: the command exactly, with control, bidi and invisible characters shown as escapes
 * (they could otherwise repaint the line), continuation lines marked so they cannot pass for findings.
 */
export function formatApproval(a: PendingApproval & Partial<MemoApproval>, workflowId?: string): string {
  const head = `${workflowId ? `${workflowId} ` : ''}${a.approvalId} · ${a.tool} · asked ${a.askedAt} · denied at ${a.expiresAt} unless decided`;
  const [first = '', ...more] = visibleText(a.command).split('\n');
  const command = [`  $ ${first}`, ...more.map((l) => `  > ${l}`)];
  if (a.hidden || hasHiddenCharacters(a.command))
    command.push('  (the command holds control or invisible characters, shown above as \\x.. and \\u.... escapes)');
  if (a.redacted) command.push('  (what looked like a secret is shown as [REDACTED ...] in this listing)');
  if (a.shortened) command.push('  (shortened in this listing: tether status shows the whole command)');
  return [
    head,
    ...networkLine(a),
    ...command,
    ...a.findings.map((f) => `  [${f.rule}] ${visibleText(f.description, { newlines: 'escape' })}`),
  ].join('\n');
}

/** A network approval names its host first; the command below it is what was running when it connected. */
function networkLine(a: PendingApproval): string[] {
  const target = networkTargetOf(a);
  return target === undefined ? [] : [`  network: ${visibleText(target)}`];
}

function report(workflowId: string, approvalId: string, choice: ApprovalChoice, out: DecideOutcome): void {
  if (out.status === 'rejected') throw new CliError(`decision rejected: ${out.reason}`, 1);
  if (out.status === 'queued') process.stderr.write(`${out.note}\n`);
  process.stdout.write(
    `${choice === 'deny' ? 'denied' : `approved (${choice})`}: ${workflowId} ${approvalId}${out.status === 'queued' ? ' (queued)' : ''}\n`,
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
    .action(async (opts: { json?: boolean }) => {
      const { approvals, unanswered } = await withTemporal((client) => listPendingApprovals(client));
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
