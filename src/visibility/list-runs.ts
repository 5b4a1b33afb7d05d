// Lists agent runs from Temporal's visibility store (search attributes and memo), a page at a time: no run is
// asked anything, so listings work with no worker running. Worker-only.
import type { Client } from '@temporalio/client';
import { executionInfoFromRaw } from '@temporalio/client/lib/helpers.js';
import {
  BATCH_KEY,
  MEMO_KEY,
  MODEL_KEY,
  PARENT_RUN_KEY,
  PENDING_APPROVALS_KEY,
  SCHEDULE_KEY,
  STATUS_KEY,
  type RunMemo,
} from '../common/search-attributes.js';
import { rowStatus, runQuery, type RunFilter } from './run-query.js';
import { runUsage, type Prices, type RunUsage } from '../observability/usage.js';

export interface RunRow {
  workflowId: string;
  runId: string;
  /** running, waiting-approval, ... while it runs; completed, failed, ... once closed. */
  status: string;
  temporalStatus: string;
  model?: string;
  parent?: string;
  batch?: string;
  schedule?: string;
  pendingApprovals: string[];
  startTime: string;
  closeTime: string | null;
  /** What the run published for people (absent for runs of workers older than visibility). */
  memo?: RunMemo;
  /** Tokens in and out (and cost, with a price for the model), from the memo: as of the last status change. */
  tokens?: RunUsage;
}

export interface RunPage {
  runs: RunRow[];
  /** Give it back as `pageToken` for the next page; absent on the last page. */
  nextPageToken?: string;
}

/** The largest page the server returns (frontend.visibilityMaxPageSize defaults to 1000). */
export const MAX_PAGE = 1000;

function isRunMemo(v: unknown): v is RunMemo {
  return typeof v === 'object' && v !== null && (v as RunMemo).v === 1 && Array.isArray((v as RunMemo).approvals);
}

export async function listRunPage(
  client: Client,
  filter: RunFilter & { pageSize: number; pageToken?: string; query?: string; prices?: Prices },
): Promise<RunPage> {
  const res = await client.workflowService.listWorkflowExecutions({
    namespace: client.options.namespace,
    pageSize: Math.min(filter.pageSize, MAX_PAGE),
    nextPageToken: filter.pageToken ? Buffer.from(filter.pageToken, 'base64url') : undefined,
    query: filter.query ?? runQuery(filter),
  });
  const runs = await Promise.all(
    (res.executions ?? []).map(async (raw) => {
      const w = await executionInfoFromRaw(raw, client.options.loadedDataConverter, raw, client.options.namespace);
      const sa = w.typedSearchAttributes;
      const memo = w.memo?.[MEMO_KEY];
      const row: RunRow = {
        workflowId: w.workflowId,
        runId: w.runId,
        status: rowStatus(w.status.name, sa.get(STATUS_KEY)),
        temporalStatus: w.status.name,
        model: sa.get(MODEL_KEY),
        parent: sa.get(PARENT_RUN_KEY),
        batch: sa.get(BATCH_KEY),
        schedule: sa.get(SCHEDULE_KEY),
        pendingApprovals: w.status.name === 'RUNNING' ? (sa.get(PENDING_APPROVALS_KEY) ?? []) : [],
        startTime: w.startTime.toISOString(),
        closeTime: w.closeTime?.toISOString() ?? null,
        ...(isRunMemo(memo) ? { memo } : {}),
      };
      const tokens = isRunMemo(memo) ? runUsage(memo.usage, row.model, filter.prices ?? {}) : undefined;
      if (tokens) row.tokens = tokens;
      return row;
    }),
  );
  const token = res.nextPageToken && res.nextPageToken.length > 0 ? Buffer.from(res.nextPageToken) : undefined;
  return { runs, ...(token ? { nextPageToken: token.toString('base64url') } : {}) };
}

/** Every page of a filter (for `tether approvals`, which shows all that waits). */
export async function listAllRuns(client: Client, filter: RunFilter & { query?: string }): Promise<RunRow[]> {
  const all: RunRow[] = [];
  let pageToken: string | undefined;
  do {
    const page = await listRunPage(client, { ...filter, pageSize: MAX_PAGE, pageToken });
    all.push(...page.runs);
    pageToken = page.nextPageToken;
  } while (pageToken);
  return all;
}
