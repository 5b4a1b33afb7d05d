// Fetches agent runs' histories from Temporal and replays them against a workflow build: the pre-deploy check. Worker-only.
import type { Client } from '@temporalio/client';
import { bundleWorkflowCode, Worker, type WorkflowBundle, type WorkflowBundleOption } from '@temporalio/worker';
import type { DataConverter, Logger } from '@temporalio/common';
import { TetherError } from '../common/errors.js';

type History = Awaited<ReturnType<ReturnType<Client['workflow']['getHandle']>['fetchHistory']>>;

/** Which runs to check: the given workflow ids (their latest run), else the newest `last` agent runs on the queue. */
export interface RunSelection {
  ids: string[];
  last: number;
  taskQueue: string;
  /** A visibility query ANDed to the default one (agent runs of the task queue). */
  query?: string;
}

/** One run's outcome: replayed fine, nondeterministic (with the event where it went wrong), or not checked. */
export type ReplayVerdict =
  | { workflowId: string; runId: string; kind: 'ok' }
  | { workflowId: string; runId: string; kind: 'nondeterminism'; eventId?: number; detail: string }
  | { workflowId: string; runId: string; kind: 'failed'; detail: string }
  | { workflowId: string; runId?: string; kind: 'not-found' | 'unreadable'; detail: string };

interface Fetched {
  workflowId: string;
  runId?: string;
  history?: History;
  problem?: ReplayVerdict;
}

/** The visibility query behind `--last`: agent runs (running and closed) of this task queue. */
export function selectionQuery(sel: Pick<RunSelection, 'taskQueue' | 'query'>): string {
  const base = `WorkflowType = 'agentWorkflow' AND TaskQueue = '${sel.taskQueue.replace(/'/g, "\\'")}'`;
  return sel.query ? `${base} AND (${sel.query})` : base;
}

function notFound(err: unknown): boolean {
  const e = err as { name?: string; code?: number; message?: string };
  // WorkflowNotFoundError from the client, or the raw gRPC NOT_FOUND (code 5) of getWorkflowExecutionHistory.
  return e.name === 'WorkflowNotFoundError' || e.code === 5 || /not found/i.test(e.message ?? '');
}

async function fetchOne(client: Client, workflowId: string, runId?: string): Promise<Fetched> {
  try {
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
    return { workflowId, runId: runId ?? started?.originalExecutionRunId ?? undefined, history };
  } catch (err) {
    const detail = (err as Error).message;
    if (notFound(err)) return { workflowId, problem: { workflowId, runId, kind: 'not-found', detail: 'no such run' } };
    return { workflowId, problem: { workflowId, runId, kind: 'unreadable', detail } };
  }
}

/** The runs to check: the given ids (their latest run), or the newest `last` runs the query lists. */
export async function selectRuns(client: Client, sel: RunSelection): Promise<{ workflowId: string; runId?: string }[]> {
  if (sel.ids.length > 0) return sel.ids.map((workflowId) => ({ workflowId }));
  const runs: { workflowId: string; runId: string }[] = [];
  try {
    for await (const info of client.workflow.list({ query: selectionQuery(sel), pageSize: Math.min(sel.last, 100) })) {
      runs.push({ workflowId: info.workflowId, runId: info.runId });
      if (runs.length >= sel.last) break;
    }
  } catch (err) {
    // A malformed --query is the server's INVALID_ARGUMENT (3), wrapped in the client's ServiceError.
    const cause = (err as { cause?: { code?: number; details?: string; message?: string } }).cause;
    if (cause?.code === 3)
      throw new TetherError(
        'Config.Invalid',
        `--query: ${(cause.details ?? cause.message ?? '').split('\n')[0]} (in: ${selectionQuery(sel)})`,
        false,
      );
    throw err;
  }
  return runs;
}

/** The selected runs' histories, fetched one at a time as the replay asks for them (a history can be large). */
export async function* fetchRuns(
  client: Client,
  runs: { workflowId: string; runId?: string }[],
): AsyncGenerator<Fetched> {
  for (const r of runs) yield await fetchOne(client, r.workflowId, r.runId);
}

/**
 * The id of the history event a nondeterminism message is about: the one the SDK's core names ("HistoryEvent(id: 5,
 * ...)"), or, for a patch marker the code no longer makes ("patch marker encountered for change X"), the marker
 * event that recorded patch X in `history`.
 */
export function eventIdOf(message: string, history?: History): number | undefined {
  const m = /HistoryEvent\(id:\s*(\d+)/.exec(message) ?? /\bevent(?:[ _]?id)?[:\s#]+(\d+)/i.exec(message);
  if (m) return Number(m[1]);
  const patch = /patch marker encountered for change ([^\s,]+)/i.exec(message)?.[1];
  if (!patch || !history) return undefined;
  const marker = (history.events ?? []).find((e) =>
    Object.values(e.markerRecordedEventAttributes?.details ?? {}).some((d) =>
      (d.payloads ?? []).some((p) =>
        Buffer.from(p.data ?? [])
          .toString('utf8')
          .includes(JSON.stringify(patch)),
      ),
    ),
  );
  return marker?.eventId == null ? undefined : Number(marker.eventId);
}

/**
 * Bundles the workflow code at `workflowsPath` as a worker does, before any replay worker exists: a bundle that
 * fails is one error here (a failure inside the replay worker would leave the SDK's runtime, and the CLI, running).
 */
export async function bundleForReplay(workflowsPath: string, logger: Logger): Promise<WorkflowBundle> {
  let firstError: string | undefined;
  // Webpack's error text arrives through the logger; the thrown error only says that there were errors.
  const recording: Logger = {
    ...logger,
    log: (level, message, meta) => logger.log(level, message, meta),
    trace: (m, meta) => logger.trace(m, meta),
    debug: (m, meta) => logger.debug(m, meta),
    info: (m, meta) => logger.info(m, meta),
    warn: (m, meta) => logger.warn(m, meta),
    error: (message, meta) => {
      // "ERROR in <file>", then "Module build failed (from <loader>):", then what is wrong.
      const lines = message.split('\n').map((l) => l.trim());
      const at = lines.findIndex((l) => l.startsWith('ERROR in'));
      const what = lines.slice(at + 1).find((l) => l !== '' && !l.startsWith('Module build failed'));
      firstError ??= at >= 0 && what ? `${lines[at]}: ${what}` : lines[0];
      logger.error(message, meta);
    },
  };
  try {
    return await bundleWorkflowCode({ workflowsPath, logger: recording });
  } catch (err) {
    const why = firstError ?? (err as Error).message.split('\n')[0];
    throw new TetherError('Config.Invalid', `cannot bundle the workflow code at ${workflowsPath}: ${why}`, false);
  }
}

/** Replays each fetched history with `workflowBundle` and reports every run through `report`, in order, as soon as it is known. */
export async function replayRuns(
  fetched: AsyncIterable<Fetched>,
  workflowBundle: WorkflowBundleOption,
  report: (v: ReplayVerdict) => void,
  /** The client's: encrypted histories are opened with its codec. */
  dataConverter?: DataConverter,
): Promise<void> {
  const byRun = new Map<string, History>();
  async function* histories(): AsyncGenerator<{ workflowId: string; history: History }> {
    for await (const f of fetched) {
      if (f.problem || !f.history) report(f.problem ?? { workflowId: f.workflowId, kind: 'unreadable', detail: '' });
      else {
        byRun.set(f.workflowId, f.history);
        yield { workflowId: f.workflowId, history: f.history };
      }
    }
  }
  for await (const r of Worker.runReplayHistories(
    { workflowBundle, ...(dataConverter ? { dataConverter } : {}) },
    histories(),
  )) {
    const base = { workflowId: r.workflowId, runId: r.runId };
    if (!r.error) report({ ...base, kind: 'ok' });
    else if (r.error.name === 'DeterminismViolationError' || /nondetermin/i.test(r.error.message)) {
      const eventId = eventIdOf(r.error.message, byRun.get(r.workflowId));
      report({ ...base, kind: 'nondeterminism', eventId, detail: r.error.message });
    } else report({ ...base, kind: 'failed', detail: r.error.message });
  }
}
