// `tether attach`, `say`, `answer` and `cancel`: follow and steer runs from any terminal. Worker-only.
import type { Command } from 'commander';
import { queryRunState } from '../temporal/run-handle.js';
import { ANSWER_SIGNAL, MESSAGE_SIGNAL } from '../common/workflow-messages.js';
import { CliError } from './errors.js';
import { elapsed, follow } from '../decisions/follow.js';
import { interruptSignal } from './interrupt.js';
import { renderApprovalText } from '../approval/approval-text.js';
import type { AgentState } from '../common/types.js';
import { promptOptions } from './approval-follow.js';
import { printOutcome } from './outcome.js';
import { withTemporal } from './temporal-client.js';
import { cancelAndReport, formatCancelReport } from '../temporal/cancel-report.js';

function secondsOption(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0)
    throw new CliError(`--wait must be a whole number of seconds (0 or more), got '${value}'`);
  return n;
}

/** Lines of a call's output shown when attaching: enough to see where the run is. */
const TAIL_LINES = 5;

/** What `tether attach` says first: how long the run has been going, where it is, and its latest output. */
function attachHeader(workflowId: string, started: Date, queue: string, state: AgentState | undefined): string {
  const where = state
    ? `turn ${state.turn} · ${state.toolCallCount} tool calls · ${state.usage.totalTokens} tokens`
    : 'no worker answered yet';
  const lines = [
    `attached to ${workflowId} · running for ${elapsed(Date.now() - started.getTime())} · ${where} · queue ${queue}`,
  ];
  const last = [...(state?.recentToolCalls ?? [])].reverse().find((c) => c.output !== undefined);
  if (last?.output) {
    const tail = renderApprovalText(last.output, { redact: true }).text.split('\n').slice(-TAIL_LINES);
    lines.push(`  last output (call ${last.index}, ${last.name}):`, ...tail.map((l) => `  │ ${l}`));
  }
  lines.push('  (Ctrl-C stops following; the run goes on)');
  return `${lines.join('\n')}\n`;
}

export function addInspectCommands(program: Command): void {
  program
    .command('attach')
    .description('Follow a running agent run from another terminal until it ends')
    .argument('<workflowId>')
    .option('--json', 'print one JSON object at the end')
    .option('--prompt', 'ask about approvals on this terminal even when standard input is not one')
    .option('--no-prompt', 'never ask here; decide with tether approve / deny')
    .action(async (workflowId: string, opts: { json?: boolean; prompt?: boolean }) => {
      await withTemporal(async (client, settings) => {
        const handle = client.workflow.getHandle(workflowId);
        const desc = await handle.describe(); // fails clearly for an unknown id
        const state = desc.status.name === 'RUNNING' ? await queryRunState(client, handle, 3_000) : undefined;
        if (!opts.json) process.stderr.write(attachHeader(workflowId, desc.startTime, desc.taskQueue, state));
        // Ctrl-C stops following, never the run: said in words, with the command that follows it again.
        const stop = interruptSignal();
        const asking = promptOptions(client, settings, workflowId, opts.prompt);
        const outcome = await follow(client, workflowId, {
          progress: !opts.json,
          signal: stop.signal,
          announce: true,
          queue: desc.taskQueue,
          startedAt: desc.startTime,
          ...asking,
        });
        stop.release();
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
