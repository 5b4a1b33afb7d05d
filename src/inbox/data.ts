// What the inbox shows, read from Temporal and the worker's store: pending approvals (through listPendingApprovals,
// the same listing `tether approvals` prints), recent runs, and one run with its transcript. Worker-only.
import type { Client } from '@temporalio/client';
import type { AgentResult } from '../common/types.js';
import type { DecidedApproval } from '../common/approval-types.js';
import type { NetworkReach } from '../common/egress-types.js';
import { listPendingApprovals } from '../visibility/pending-approvals.js';
import { viewOfMemo, viewOfPending, type ApprovalView } from '../approval/approval-view.js';
import { visibleText } from '../approval/visible-text.js';
import { renderApprovalText } from '../approval/approval-text.js';
import { queryRunState, runFailure } from '../temporal/run-handle.js';
import { readTask, readTranscript, storePath, type StoredEntry } from '../store/transcript-reader.js';
import { pricesFromConfig } from '../observability/prices.js';
import { runUsage, type RunUsage } from '../observability/usage.js';
import { MODEL_KEY } from '../common/search-attributes.js';
import { listRunPage } from '../visibility/list-runs.js';
import { loadConfig, type CheckpointSettings } from '../config/config.js';
import { listCheckpoints, type ListedCheckpoint } from '../checkpoints/listing.js';
import { CheckpointStore } from '../checkpoints/store.js';

const TASK_CHARS = 500;
const shorten = (text: string | undefined): string | undefined =>
  text === undefined || text.length <= TASK_CHARS ? text : `${text.slice(0, TASK_CHARS)}…`;

/** A run's task never changes: read once per run from the store, then remembered (bounded). */
const tasks = new Map<string, string>();
function taskOf(workflowId: string): string | undefined {
  const known = tasks.get(workflowId);
  if (known !== undefined) return known;
  const found = shorten(readTask(workflowId));
  if (found !== undefined) {
    if (tasks.size > 5000) tasks.clear();
    tasks.set(workflowId, found);
  }
  return found;
}

const visibleOrNot = (t: string | undefined): string | undefined => (t === undefined ? t : visibleText(t));

/**
 * A pending approval as the page shows it: the same view as every channel (src/approval/approval-view.ts). The
 * listing comes from visibility (bounded, secrets redacted); `exactApproval` gives the whole, exact text.
 */
export type InboxApproval = ApprovalView & { workflowId: string; task?: string };

export async function inboxApprovals(client: Client): Promise<{ approvals: InboxApproval[]; unanswered: string[] }> {
  const { approvals, unanswered } = await listPendingApprovals(client);
  return {
    approvals: approvals.map((a) => ({
      ...viewOfMemo(a),
      workflowId: a.workflowId,
      task: visibleOrNot(taskOf(a.workflowId)),
    })),
    unanswered,
  };
}

/** One pending approval whole and exact (no secret redacted: the page is behind its session), from the run's state. */
export async function exactApproval(
  client: Client,
  workflowId: string,
  approvalId: string,
): Promise<ApprovalView | undefined | 'no-worker'> {
  const state = await queryRunState(client, client.workflow.getHandle(workflowId), 3_000);
  if (!state) return 'no-worker';
  const p = state.pendingApprovals.find((a) => a.approvalId === approvalId);
  return p && viewOfPending(p);
}

interface RunRow {
  workflowId: string;
  status: string;
  startTime: string;
  closeTime: string | null;
  task?: string;
  /** Tokens in and out, and cost with a price for the model (config.yaml observability.prices). */
  tokens?: RunUsage;
}

export async function recentRuns(client: Client, limit: number): Promise<RunRow[]> {
  // The visibility listing every channel uses: rows decoded one by one, so a run this process cannot open (written
  // encrypted with a key it lacks) lists without its memo instead of failing the whole page.
  const page = await listRunPage(client, {
    pageSize: limit,
    query: "WorkflowType = 'agentWorkflow'",
    prices: pricesFromConfig(() => undefined),
  });
  return page.runs.map((row) => ({
    workflowId: row.workflowId,
    status: row.temporalStatus,
    startTime: row.startTime,
    closeTime: row.closeTime,
    task: visibleOrNot(taskOf(row.workflowId)),
    ...(row.tokens ? { tokens: row.tokens } : {}),
  }));
}

interface RunDetail extends RunRow {
  /** The run's own status (completed, limit_reached, ...) when known, else Temporal's. */
  runStatus?: string;
  answer?: string;
  error?: string;
  transcript: StoredEntry[];
  /** Where the transcript was looked for, when it was not found (it is written by the worker, on its machine). */
  transcriptMissing?: string;
  pendingApprovals: ApprovalView[];
  decided: DecidedApproval[];
  /** The hosts the run's commands reached or were refused (egress proxy). */
  network?: NetworkReach[];
  /** No worker answered the state query: decisions are not known. */
  stateUnavailable?: boolean;
  /** Checkpoints of the run's task directory on this machine, oldest first (src/checkpoints/listing.ts). */
  checkpoints: ListedCheckpoint[];
}

/** A host as the page shows it: names and reasons come from the sandbox side, so escaped like commands. */
const shownReach = (n: NetworkReach): NetworkReach => ({ ...n, host: visibleText(n.host), by: visibleText(n.by) });

/** A checkpoint as the page shows it: what came from the run (arguments, paths) made visible. */
function shownCheckpoint(c: ListedCheckpoint): ListedCheckpoint {
  const v = (t: string): string => visibleText(t, { newlines: 'escape' });
  const a = c.changedAfter;
  return {
    ...c,
    cwd: v(c.cwd),
    ...(c.args !== undefined ? { args: v(c.args) } : {}),
    ...(a
      ? {
          changedAfter: {
            ...a,
            paths: { added: a.paths.added.map(v), modified: a.paths.modified.map(v), deleted: a.paths.deleted.map(v) },
          },
        }
      : {}),
  };
}

/** One run; `checkpoints` are the settings its checkpoint summaries use (default: config.yaml's). */
export async function runDetail(
  client: Client,
  workflowId: string,
  checkpoints: CheckpointSettings = loadConfig().checkpoints,
): Promise<RunDetail> {
  const handle = client.workflow.getHandle(workflowId);
  const desc = await handle.describe();
  const state = await queryRunState(client, handle, 3_000);
  const transcript = readTranscript(workflowId).map((e) => ({ ...e, content: visibleText(e.content) }));
  const detail: RunDetail = {
    workflowId,
    status: desc.status.name,
    startTime: desc.startTime.toISOString(),
    closeTime: desc.closeTime?.toISOString() ?? null,
    task: visibleOrNot(taskOf(workflowId)),
    runStatus: state?.status,
    answer: visibleOrNot(state?.answer),
    error: visibleOrNot(state?.error),
    transcript,
    ...(transcript.length === 0 ? { transcriptMissing: storePath() } : {}),
    pendingApprovals: (state?.pendingApprovals ?? []).map((p) => viewOfPending(p)),
    decided: (state?.approvals.decided ?? []).map((d) => ({ ...d, command: renderApprovalText(d.command).text })),
    ...(state?.network ? { network: state.network.map(shownReach) } : {}),
    ...(state ? {} : { stateUnavailable: true }),
    checkpoints: (await listCheckpoints(new CheckpointStore(), checkpoints, workflowId)).map(shownCheckpoint),
  };
  const model = state?.model ?? desc.typedSearchAttributes.get(MODEL_KEY);
  const prices = pricesFromConfig(() => undefined);
  const priced = (usage: AgentResult['usage'] | undefined): void => {
    const tokens = runUsage(usage, model, prices);
    if (tokens) detail.tokens = tokens;
  };
  priced(state?.usage);
  if (desc.status.name !== 'RUNNING' && detail.answer === undefined) {
    try {
      const r = (await handle.result()) as AgentResult;
      priced(r.usage);
      Object.assign(detail, {
        runStatus: r.status,
        answer: visibleOrNot(r.answer),
        ...(r.network && !detail.network ? { network: r.network.map(shownReach) } : {}),
      });
    } catch (err) {
      const f = runFailure(err);
      Object.assign(detail, { runStatus: f.status, error: visibleOrNot(f.error) });
    }
  }
  return detail;
}
