// `tether status`: the state of one run (live from its query while it runs, its result once closed), from the lean
// reader when it can answer, else from the SDK's client. Worker-only, and client-only (test/cli-start.test.ts).
import type { Command } from 'commander';
import type { Client } from '@temporalio/client';
import type { AgentResult, AgentState } from '../common/types.js';
import { networkRule } from '../common/egress-types.js';
import { viewOfPending } from '../approval/approval-view.js';
import { renderApprovalText } from '../approval/approval-text.js';
import { visibleJson, visibleText } from '../approval/visible-text.js';
import type { LeanReader } from '../temporal/lean/lean-reader.js';
import { formatUsage, pricesIfConfigured, runUsage, type Prices, type RunUsage } from '../observability/usage.js';
import { formatApproval } from '../decisions/approval-format.js';
import { noticeLine, noticeTries, type NoticeTries } from './notice-status.js';
import { withFastReads } from './fast-reads.js';

const QUERY_MS = 5_000;
const NO_ANSWER = 'no worker answered the state query (is one running?)';

/** Tokens in and out, priced when config.yaml has a price for the run's model (from visibility once it ended). */
function withTokens(
  s: Record<string, unknown>,
  attributeModel: string | undefined,
  prices: Prices,
): Record<string, unknown> {
  const model = typeof s.model === 'string' ? s.model : attributeModel;
  const tokens = runUsage(s.usage as AgentState['usage'] | undefined, model, prices);
  return tokens ? { ...s, tokens } : s;
}

/** The tries of the notices still being sent (approvals.webhook_url), when there are any. */
function withNoticeTries(
  s: AgentState,
  pending: Parameters<typeof noticeTries>[0],
): { noticeTries?: Record<string, NoticeTries> } {
  if (!s.approvalNotices) return {};
  const tries = noticeTries(pending);
  return Object.keys(tries).length > 0 ? { noticeTries: tries } : {};
}

/** The lean answer for a running or completed run; undefined for the rest, which the client explains. */
async function leanStatus(
  reader: LeanReader,
  workflowId: string,
  prices: Prices,
): Promise<Record<string, unknown> | undefined> {
  const d = await reader.describe(workflowId);
  const base = {
    workflowId,
    temporalStatus: d.status,
    startTime: d.startTime.toISOString(),
    closeTime: d.closeTime?.toISOString() ?? null,
  };
  if (d.status === 'RUNNING') {
    const s = await reader.queryState(workflowId, QUERY_MS);
    return s
      ? withTokens({ ...base, ...s, ...withNoticeTries(s, d.pendingActivities) }, d.model, prices)
      : { ...base, status: 'running', note: NO_ANSWER };
  }
  if (d.status !== 'COMPLETED') return undefined;
  const result = await reader.completedResult(workflowId, d.runId);
  return result && typeof result.value === 'object' && result.value !== null
    ? withTokens({ ...base, ...(result.value as AgentResult) }, d.model, prices)
    : undefined;
}

/** Status of one run: live state from the query while it runs, its result or failure once closed. */
async function clientStatus(client: Client, workflowId: string, prices: Prices): Promise<Record<string, unknown>> {
  const [{ queryRunState, runFailure }, { MODEL_KEY }] = await Promise.all([
    import('../temporal/run-handle.js'),
    import('../common/search-attributes.js'),
  ]);
  const handle = client.workflow.getHandle(workflowId);
  const desc = await handle.describe();
  const base = {
    workflowId,
    temporalStatus: desc.status.name,
    startTime: desc.startTime.toISOString(),
    closeTime: desc.closeTime?.toISOString() ?? null,
  };
  const model = desc.typedSearchAttributes.get(MODEL_KEY);
  if (desc.status.name === 'RUNNING') {
    const s = await queryRunState(client, handle, QUERY_MS);
    return s
      ? withTokens({ ...base, ...s, ...withNoticeTries(s, desc.raw.pendingActivities) }, model, prices)
      : { ...base, status: 'running', note: NO_ANSWER };
  }
  try {
    const r = (await handle.result()) as AgentResult;
    return withTokens({ ...base, ...r }, model, prices);
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
      `  ${c.status === 'awaiting_approval' ? 'waiting for approval' : 'running'}: ${c.emoji} ${c.name}  ${renderApprovalText(c.summary, { newlines: 'escape' }).text}`,
    );
  const notices = (s.approvalNotices as AgentState['approvalNotices']) ?? {};
  const tries = (s.noticeTries as Record<string, NoticeTries> | undefined) ?? {};
  for (const a of (s.pendingApprovals as AgentState['pendingApprovals'] | undefined) ?? []) {
    lines.push(formatApproval(viewOfPending(a), { unfold: 'tether approvals --exact' }).replace(/^/gm, '  '));
    const notice = noticeLine(notices[a.approvalId], tries[a.approvalId]);
    if (notice) lines.push(`    ${visibleText(notice, { newlines: 'escape' })}`);
  }
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

export function addStatusCommand(program: Command): void {
  program
    .command('status')
    .description('Show the state of a run: status, turn, current tool calls, usage, answer')
    .argument('<workflowId>')
    .option('--json', 'print JSON')
    .action(async (workflowId: string, opts: { json?: boolean }) => {
      const prices = await pricesIfConfigured();
      const s = await withFastReads(
        (reader) => leanStatus(reader, workflowId, prices),
        (client) => clientStatus(client, workflowId, prices),
      );
      if (opts.json) process.stdout.write(`${visibleJson(s, 2)}\n`);
      else printStatus(s);
    });
}
