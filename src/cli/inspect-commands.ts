// `tether status`, `attach` and `cancel`: look at and steer runs from any terminal. Worker-only.
import type { Command } from 'commander';
import type { Client } from '@temporalio/client';
import { queryRunState, runFailure } from '../temporal/run-handle.js';
import type { AgentResult, AgentState } from '../common/types.js';
import { ANSWER_SIGNAL, MESSAGE_SIGNAL } from '../common/workflow-messages.js';
import { networkRule } from '../common/egress-types.js';
import { CliError } from './errors.js';
import { follow } from './follow.js';
import { promptOptions } from './approval-follow.js';
import { formatApproval } from './approval-commands.js';
import { viewOfPending } from '../approval/approval-view.js';
import { visibleJson, visibleText } from '../approval/visible-text.js';
import { printOutcome } from './run-command.js';
import { withTemporal } from './temporal-client.js';
import { cancelAndReport, formatCancelReport } from '../temporal/cancel-report.js';
import { MODEL_KEY } from '../common/search-attributes.js';
import { formatUsage, pricesFromConfig, runUsage, type RunUsage } from '../observability/usage.js';

function secondsOption(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0)
    throw new CliError(`--wait must be a whole number of seconds (0 or more), got '${value}'`);
  return n;
}

/** Status of one run: live state from the query while it runs, its result or failure once closed. */
async function runStatus(client: Client, workflowId: string): Promise<Record<string, unknown>> {
  const handle = client.workflow.getHandle(workflowId);
  const desc = await handle.describe();
  const base = {
    workflowId,
    temporalStatus: desc.status.name,
    startTime: desc.startTime.toISOString(),
    closeTime: desc.closeTime?.toISOString() ?? null,
  };
  // Tokens in and out, priced when config.yaml has a price for the run's model (from visibility once it ended).
  const withTokens = (s: Record<string, unknown>): Record<string, unknown> => {
    const model = typeof s.model === 'string' ? s.model : desc.typedSearchAttributes.get(MODEL_KEY);
    const tokens = runUsage(s.usage as AgentState['usage'] | undefined, model, pricesFromConfig());
    return tokens ? { ...s, tokens } : s;
  };
  if (desc.status.name === 'RUNNING') {
    const s = await queryRunState(client, handle, 5_000);
    return s
      ? withTokens({ ...base, ...s })
      : { ...base, status: 'running', note: 'no worker answered the state query (is one running?)' };
  }
  try {
    const r = (await handle.result()) as AgentResult;
    return withTokens({ ...base, ...r });
  } catch (err) {
    return { ...base, ...runFailure(err) };
  }
}

function printStatus(s: Record<string, unknown>): void {
  const lines = [`${s.workflowId}: ${String(s.status ?? s.temporalStatus)}`];
  if (s.turn !== undefined || s.turns !== undefined)
    lines.push(`  turns: ${String(s.turn ?? s.turns)}  tool calls: ${String(s.toolCallCount ?? s.toolCalls)}`);
  if (s.tokens) lines.push(`  usage: ${formatUsage(s.tokens as RunUsage)}`);
  const current = s.currentToolCalls as AgentState['currentToolCalls'] | undefined;
  for (const c of current ?? [])
    lines.push(
      `  ${c.status === 'awaiting_approval' ? 'waiting for approval' : 'running'}: ${c.emoji} ${c.name}  ${visibleText(c.summary, { newlines: 'escape' })}`,
    );
  for (const a of (s.pendingApprovals as AgentState['pendingApprovals'] | undefined) ?? [])
    lines.push(formatApproval(viewOfPending(a)).replace(/^/gm, '  '));
  const todo = (s.todo as AgentState['todo'] | undefined) ?? [];
  if (todo.length > 0)
    lines.push(
      '  plan:',
      ...todo.map(
        (t) => `    [${{ pending: ' ', in_progress: '~', completed: 'x', cancelled: '-' }[t.status]}] ${t.content}`,
      ),
    );
  const q = s.question as AgentState['question'];
  if (q)
    lines.push(
      `  question ${q.id}: ${q.question}${q.choices ? ` (${q.choices.join(' / ')})` : ''} — answer with: tether answer ${String(s.workflowId)} "..."`,
    );
  const network = (s.network as AgentState['network']) ?? [];
  if (network.length > 0)
    lines.push(
      '  network:',
      ...network.map(
        (n) =>
          `    ${visibleText(networkRule(n.host, n.port).slice('network:'.length))}  ${n.decision} (${visibleText(n.by, { newlines: 'escape' })}) · ${n.count} connection(s)`,
      ),
    );
  for (const c of (s.children as AgentState['children'] | undefined) ?? [])
    lines.push(`  sub-agent ${c.workflowId}: ${c.status} · ${c.goal}`);
  const cp = s.lastCheckpoint as AgentState['lastCheckpoint'];
  if (cp)
    lines.push(
      cp.id
        ? `  last checkpoint: ${cp.id.slice(0, 12)} before turn ${cp.turn} (${cp.tool}) — tether checkpoints ${String(s.workflowId)}`
        : `  no checkpoint before turn ${cp.turn} (${cp.tool}): ${cp.skipped ?? ''}`,
    );
  if (s.continuedRuns) lines.push(`  continued as new ${String(s.continuedRuns)} times`);
  if (s.answer) lines.push(`  answer: ${String(s.answer)}`);
  if (s.error) lines.push(`  error: ${String(s.error)}`);
  if (s.note) lines.push(`  ${String(s.note)}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

export function addInspectCommands(program: Command): void {
  program
    .command('status')
    .description('Show the state of a run: status, turn, current tool calls, usage, answer')
    .argument('<workflowId>')
    .option('--json', 'print JSON')
    .action(async (workflowId: string, opts: { json?: boolean }) => {
      const s = await withTemporal((client) => runStatus(client, workflowId));
      if (opts.json) process.stdout.write(`${visibleJson(s, 2)}\n`);
      else printStatus(s);
    });

  program
    .command('attach')
    .description('Follow a running agent run from another terminal until it ends')
    .argument('<workflowId>')
    .option('--json', 'print one JSON object at the end')
    .option('--prompt', 'ask about approvals on this terminal even when standard input is not one')
    .option('--no-prompt', 'never ask here; decide with tether approve / deny')
    .action(async (workflowId: string, opts: { json?: boolean; prompt?: boolean }) => {
      await withTemporal(async (client, settings) => {
        await client.workflow.getHandle(workflowId).describe(); // fails clearly for an unknown id
        const asking = promptOptions(client, settings, workflowId, opts.prompt);
        const outcome = await follow(client, workflowId, { progress: !opts.json, ...asking });
        asking.prompter?.close();
        printOutcome(workflowId, outcome, opts.json ?? false);
      });
    });

  program
    .command('say')
    .description('Give a running agent a new instruction; it takes it at its next turn')
    .argument('<workflowId>')
    .argument('<text...>')
    .action(async (workflowId: string, words: string[]) => {
      const text = words.join(' ');
      if (text.trim() === '') throw new CliError('the message is empty', 2);
      if (text.length > 20_000)
        throw new CliError(`the message has ${text.length} characters; at most 20000 are taken`, 2);
      await withTemporal((client) => client.workflow.getHandle(workflowId).signal(MESSAGE_SIGNAL, { text }));
      process.stdout.write(`message sent to ${workflowId}\n`);
    });

  program
    .command('answer')
    .description('Answer the question a running agent asked with clarify')
    .argument('<workflowId>')
    .argument('<text...>')
    .action(async (workflowId: string, words: string[]) => {
      const text = words.join(' ');
      if (text.length > 20_000)
        throw new CliError(`the answer has ${text.length} characters; at most 20000 are taken`, 2);
      await withTemporal(async (client) => {
        const handle = client.workflow.getHandle(workflowId);
        const state = await queryRunState(client, handle, 5_000);
        if (state && !state.question) throw new CliError(`${workflowId} is not waiting for an answer`, 1);
        await handle.signal(ANSWER_SIGNAL, { text, questionId: state?.question?.id });
      });
      process.stdout.write(`answer sent to ${workflowId}\n`);
    });

  program
    .command('cancel')
    .description('Cancel a run: running tool calls are stopped and the run ends as cancelled')
    .argument('<workflowId>')
    .option(
      '--wait <seconds>',
      'how long to wait for the tool calls to stop and the run to end (0: do not wait)',
      secondsOption,
      60,
    )
    .action(async (workflowId: string, opts: { wait: number }) => {
      const report = await withTemporal((client) => cancelAndReport(client, workflowId, opts.wait * 1000));
      process.stdout.write(`${formatCancelReport(workflowId, report).join('\n')}\n`);
    });
}
