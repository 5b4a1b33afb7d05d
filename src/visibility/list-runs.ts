// Lists agent runs from Temporal's visibility store (search attributes and memo), a page at a time: no run is
// asked anything, so listings work with no worker running. On the SDK's client or the lean reader. Worker-only.
import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { ATTRIBUTES, MEMO_KEY, type RunMemo } from '../common/search-attribute-names.js';
import { EXECUTION_STATUS, jsonPayload, timestamp, type RawPayload } from '../payloads/json-payload.js';
import { readerOf, type RunReader } from '../temporal/run-reader.js';
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

type RawExecution = temporal.api.workflow.v1.IWorkflowExecutionInfo;

/** A search attribute's value as the default converter wrote it; undefined when absent or not JSON. */
function attribute(raw: RawExecution, name: string): unknown {
  const p = raw.searchAttributes?.indexedFields?.[name] as RawPayload | undefined;
  const decoded = p ? jsonPayload(p) : undefined;
  return decoded?.ok ? decoded.value : undefined;
}

const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** One listed run from the raw protobuf the server sent (the same whichever client asked). */
export function rowFromRaw(raw: RawExecution): RunRow {
  const temporalStatus = EXECUTION_STATUS[raw.status ?? 0] ?? 'UNSPECIFIED';
  const memoPayload = raw.memo?.fields?.[MEMO_KEY] as RawPayload | undefined;
  const memo = memoPayload ? jsonPayload(memoPayload) : undefined;
  const pending = attribute(raw, ATTRIBUTES.pendingApprovals.name);
  return {
    workflowId: raw.execution?.workflowId ?? '',
    runId: raw.execution?.runId ?? '',
    status: rowStatus(temporalStatus, text(attribute(raw, ATTRIBUTES.status.name))),
    temporalStatus,
    model: text(attribute(raw, ATTRIBUTES.model.name)),
    parent: text(attribute(raw, ATTRIBUTES.parentRun.name)),
    batch: text(attribute(raw, ATTRIBUTES.batch.name)),
    schedule: text(attribute(raw, ATTRIBUTES.schedule.name)),
    pendingApprovals:
      temporalStatus === 'RUNNING' && Array.isArray(pending) ? pending.filter((p) => typeof p === 'string') : [],
    startTime: (timestamp(raw.startTime) ?? new Date(0)).toISOString(),
    closeTime: timestamp(raw.closeTime)?.toISOString() ?? null,
    ...(memo?.ok && isRunMemo(memo.value) ? { memo: memo.value } : {}),
  };
}

/** State queries at once when a listing reads running runs' tokens live. */
const LIVE_AT_ONCE = 8;

/**
 * Tokens of running runs as the runs themselves count them (the memo's are as of the last status change), where a
 * worker answers within `timeoutMs`; the memo's figure stays for the rest.
 */
async function liveTokens(reader: RunReader, runs: RunRow[], prices: Prices, timeoutMs: number): Promise<RunRow[]> {
  const out = [...runs];
  const running = out.map((r, i) => [r, i] as const).filter(([r]) => r.temporalStatus === 'RUNNING');
  for (let i = 0; i < running.length; i += LIVE_AT_ONCE) {
    const answered = await Promise.all(
      running.slice(i, i + LIVE_AT_ONCE).map(async ([row, at]) => {
        const state = await reader.queryState(row.workflowId, timeoutMs).catch(() => undefined);
        const tokens = state ? runUsage(state.usage, row.model ?? state.model, prices) : undefined;
        if (tokens) out[at] = { ...row, tokens };
        return state !== undefined;
      }),
    );
    // No worker answered any of them: the rest would only wait as long again.
    if (!answered.some(Boolean)) break;
  }
  return out;
}

export async function listRunPage(
  source: Client | RunReader,
  filter: RunFilter & {
    pageSize: number;
    pageToken?: string;
    query?: string;
    prices?: Prices;
    /** Ask running runs for their tokens (`tether list`), waiting at most this long for each. */
    liveTokensMs?: number;
  },
): Promise<RunPage> {
  const reader = await readerOf(source);
  const res = await reader.listWorkflowExecutions({
    namespace: reader.namespace,
    pageSize: Math.min(filter.pageSize, MAX_PAGE),
    nextPageToken: filter.pageToken ? Buffer.from(filter.pageToken, 'base64url') : undefined,
    query: filter.query ?? runQuery(filter),
  });
  const runs = (res.executions ?? []).map((raw) => {
    const row = rowFromRaw(raw);
    const tokens = row.memo ? runUsage(row.memo.usage, row.model, filter.prices ?? {}) : undefined;
    return tokens ? { ...row, tokens } : row;
  });
  const token = res.nextPageToken && res.nextPageToken.length > 0 ? Buffer.from(res.nextPageToken) : undefined;
  const live = filter.liveTokensMs ? await liveTokens(reader, runs, filter.prices ?? {}, filter.liveTokensMs) : runs;
  // Newest start first: SQL visibility returns running runs first, then by close time, and takes no ORDER BY.
  live.sort((a, b) => b.startTime.localeCompare(a.startTime));
  return { runs: live, ...(token ? { nextPageToken: token.toString('base64url') } : {}) };
}

/** Every page of a filter (for `tether approvals`, which shows all that waits). */
export async function listAllRuns(
  source: Client | RunReader,
  filter: RunFilter & { query?: string },
): Promise<RunRow[]> {
  const reader = await readerOf(source);
  const all: RunRow[] = [];
  let pageToken: string | undefined;
  do {
    const page = await listRunPage(reader, { ...filter, pageSize: MAX_PAGE, pageToken });
    all.push(...page.runs);
    pageToken = page.nextPageToken;
  } while (pageToken);
  return all;
}
