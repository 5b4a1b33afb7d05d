// `tether status`: the state of one run (live from its query while it runs, its result once closed), from the lean
// reader when it can answer, else from the SDK's client. Worker-only, and client-only (test/cli-start.test.ts).
import type { Command } from 'commander';
import type { Client } from '@temporalio/client';
import type { AgentResult, AgentState } from '../common/types.js';
import { visibleJson, visibleText } from '../approval/visible-text.js';
import type { LeanReader } from '../temporal/lean/lean-reader.js';
import { formatApproval } from './approval-format.js';
import { withFastReads } from './fast-reads.js';

const QUERY_MS = 5_000;
const NO_ANSWER = 'no worker answered the state query (is one running?)';

/** The lean answer for a running or completed run; undefined for the rest, which the client explains. */
async function leanStatus(reader: LeanReader, workflowId: string): Promise<Record<string, unknown> | undefined> {
  const d = await reader.describe(workflowId);
  const base = {
    workflowId,
    temporalStatus: d.status,
    startTime: d.startTime.toISOString(),
    closeTime: d.closeTime?.toISOString() ?? null,
  };
  if (d.status === 'RUNNING') {
    const s = await reader.queryState(workflowId, QUERY_MS);
    return s ? { ...base, ...s } : { ...base, status: 'running', note: NO_ANSWER };
  }
  if (d.status !== 'COMPLETED') return undefined;
  const result = await reader.completedResult(workflowId, d.runId);
  return result && typeof result.value === 'object' && result.value !== null
    ? { ...base, ...(result.value as AgentResult) }
    : undefined;
}

/** Status of one run: live state from the query while it runs, its result or failure once closed. */
async function clientStatus(client: Client, workflowId: string): Promise<Record<string, unknown>> {
  const { queryRunState, runFailure } = await import('../temporal/run-handle.js');
  const handle = client.workflow.getHandle(workflowId);
  const desc = await handle.describe();
  const base = {
    workflowId,
    temporalStatus: desc.status.name,
    startTime: desc.startTime.toISOString(),
    closeTime: desc.closeTime?.toISOString() ?? null,
  };
  if (desc.status.name === 'RUNNING') {
    const s = await queryRunState(client, handle, QUERY_MS);
    return s ? { ...base, ...s } : { ...base, status: 'running', note: NO_ANSWER };
  }
  try {
    const r = (await handle.result()) as AgentResult;
    return { ...base, ...r };
  } catch (err) {
    return { ...base, ...runFailure(err) };
  }
}

function printStatus(s: Record<string, unknown>): void {
  const lines = [`${s.workflowId}: ${String(s.status ?? s.temporalStatus)}`];
  if (s.turn !== undefined || s.turns !== undefined)
    lines.push(`  turns: ${String(s.turn ?? s.turns)}  tool calls: ${String(s.toolCallCount ?? s.toolCalls)}`);
  const current = s.currentToolCalls as AgentState['currentToolCalls'] | undefined;
  for (const c of current ?? [])
    lines.push(
      `  ${c.status === 'awaiting_approval' ? 'waiting for approval' : 'running'}: ${c.emoji} ${c.name}  ${visibleText(c.summary, { newlines: 'escape' })}`,
    );
  for (const a of (s.pendingApprovals as AgentState['pendingApprovals'] | undefined) ?? [])
    lines.push(formatApproval(a).replace(/^/gm, '  '));
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
  for (const c of (s.children as AgentState['children'] | undefined) ?? [])
    lines.push(`  sub-agent ${c.workflowId}: ${c.status} · ${c.goal}`);
  if (s.continuedRuns) lines.push(`  continued as new ${String(s.continuedRuns)} times`);
  if (s.answer) lines.push(`  answer: ${String(s.answer)}`);
  if (s.error) lines.push(`  error: ${String(s.error)}`);
  if (s.note) lines.push(`  ${String(s.note)}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

export function addStatusCommand(program: Command): void {
  program
    .command('status')
    .description('Show the state of a run: status, turn, current tool calls, usage, answer')
    .argument('<workflowId>')
    .option('--json', 'print JSON')
    .action(async (workflowId: string, opts: { json?: boolean }) => {
      const s = await withFastReads(
        (reader) => leanStatus(reader, workflowId),
        (client) => clientStatus(client, workflowId),
      );
      if (opts.json) process.stdout.write(`${visibleJson(s, 2)}\n`);
      else printStatus(s);
    });
}
