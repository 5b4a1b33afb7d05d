// Runs a batch of agent runs, at most N at once, resumable: each task has a stable workflow id and is never run twice. Worker-only.
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { WorkflowExecutionAlreadyStartedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { queryRunState, runFailure } from '../temporal/run-handle.js';
import type { AgentInput, AgentResult } from '../common/types.js';
import type { BatchItem } from './batch-file.js';
import { agentWorkflow } from '../workflows/agent-workflow.js';
import { runUsage, type Prices, type RunUsage } from '../observability/usage.js';

interface BatchResultLine {
  line: number;
  task: string;
  workflowId: string;
  status: string;
  answer: string | null;
  turns: number | null;
  toolCalls: number | null;
  durationMs: number | null;
  /** Tokens in and out, and the cost when config.yaml prices the model; null for a run that failed. */
  tokens: RunUsage | null;
  error?: string;
}

export interface BatchProgress {
  total: number;
  done: number;
  running: number;
  waitingApproval: number;
  failed: number;
}

interface BatchOptions {
  client: Client;
  taskQueue: string;
  /** Identifies the batch file (its absolute path) so ids differ between files. */
  batchKey: string;
  items: { item: BatchItem; input: AgentInput }[];
  concurrency: number;
  /** Result lines are appended here as runs finish; lines already there are not run or written again. */
  outPath?: string;
  signal?: AbortSignal;
  onProgress?: (p: BatchProgress) => void;
  onResult?: (r: BatchResultLine) => void;
  /** observability.prices: results carry a cost for priced models. */
  prices?: Prices;
}

const short = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 10);

/** The batch's id (in its runs' workflow ids and their TetherBatch attribute): the same for every run of one file. */
export const batchIdOf = (batchKey: string): string => short(batchKey);

/** Stable across re-runs of the same file: same path, same line number, same line text. */
function batchWorkflowId(batchKey: string, item: BatchItem): string {
  return `tether-batch-${batchIdOf(batchKey)}-L${item.line}-${short(item.source)}`;
}

/** Workflow id → status of the result lines an earlier invocation wrote. */
function alreadyWritten(outPath: string | undefined): Map<string, string> {
  const ids = new Map<string, string>();
  if (!outPath || !existsSync(outPath)) return ids;
  for (const line of readFileSync(outPath, 'utf8').split('\n')) {
    try {
      const r = JSON.parse(line) as { workflowId?: unknown; status?: unknown };
      if (typeof r.workflowId === 'string') ids.set(r.workflowId, String(r.status));
    } catch {
      // a line cut by an interrupted write: that task is simply finished again
    }
  }
  return ids;
}

/** Anything but a completed run counts against the batch (failed, cancelled, stopped at a limit). */
export const unsuccessful = (status: string): boolean => status !== 'completed';

async function outcome(
  handle: WorkflowHandle,
  item: BatchItem,
  model: string,
  prices: Prices,
): Promise<BatchResultLine> {
  const base = { line: item.line, task: item.task, workflowId: handle.workflowId };
  let line: BatchResultLine;
  try {
    const r = (await handle.result()) as AgentResult;
    line = {
      ...base,
      status: r.status,
      answer: r.answer,
      turns: r.turns,
      toolCalls: r.toolCalls,
      durationMs: null,
      tokens: runUsage(r.usage, model, prices) ?? null,
    };
  } catch (err) {
    line = { ...base, ...runFailure(err), answer: null, turns: null, toolCalls: null, durationMs: null, tokens: null };
  }
  const desc = await handle.describe();
  line.durationMs = desc.closeTime ? desc.closeTime.getTime() - desc.startTime.getTime() : null;
  return line;
}

export async function runBatch(o: BatchOptions): Promise<{
  results: BatchResultLine[];
  interrupted: boolean;
  /** A run of the batch ended cancelled (`tether batch cancel`, `tether cancel`): no more tasks were started. */
  cancelled: boolean;
  previouslyDone: number;
  previouslyUnsuccessful: number;
}> {
  const written = alreadyWritten(o.outPath);
  const earlier = o.items
    .map(({ item }) => written.get(batchWorkflowId(o.batchKey, item)))
    .filter((s): s is string => s !== undefined);
  const todo = o.items.filter(({ item }) => !written.has(batchWorkflowId(o.batchKey, item)));
  const previouslyUnsuccessful = earlier.filter(unsuccessful).length;
  const progress: BatchProgress = {
    total: o.items.length,
    done: earlier.length,
    running: 0,
    waitingApproval: 0,
    failed: previouslyUnsuccessful,
  };
  const results: BatchResultLine[] = [];
  const running = new Map<string, WorkflowHandle>();
  const report = (): void => o.onProgress?.({ ...progress, running: running.size });

  // Counts runs waiting for a person, for the progress display; one pass at a time, awaited before returning.
  let pass: Promise<void> = Promise.resolve();
  const countWaiting = async (): Promise<void> => {
    let waiting = 0;
    for (const h of [...running.values()]) {
      const s = await queryRunState(o.client, h, 2_000);
      if ((s?.pendingApprovals.length ?? 0) > 0) waiting += 1;
    }
    progress.waitingApproval = waiting;
    report();
  };
  const ticker = setInterval(() => {
    pass = pass.then(countWaiting);
  }, 1_000);

  let next = 0;
  let cancelled = false;
  const stopped = new Promise<void>((resolve) => {
    if (o.signal?.aborted) resolve();
    o.signal?.addEventListener('abort', () => resolve(), { once: true });
  });
  const lane = async (): Promise<void> => {
    while (next < todo.length && !o.signal?.aborted && !cancelled) {
      const { item, input } = todo[next++]!;
      const workflowId = batchWorkflowId(o.batchKey, item);
      let handle: WorkflowHandle;
      try {
        // A finished or running workflow with this id is never started again: its result is awaited instead.
        handle = await o.client.workflow.start(agentWorkflow, {
          taskQueue: o.taskQueue,
          workflowId,
          args: [{ ...input, batchId: batchIdOf(o.batchKey) }],
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
        });
      } catch (err) {
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
        handle = o.client.workflow.getHandle(workflowId);
      }
      running.set(workflowId, handle);
      report();
      const line = await outcome(handle, item, input.model, o.prices ?? {});
      running.delete(workflowId);
      if (o.signal?.aborted) return; // the run finished as we stopped: a re-run writes it
      if (o.outPath) appendFileSync(o.outPath, `${JSON.stringify(line)}\n`);
      results.push(line);
      progress.done += 1;
      if (unsuccessful(line.status)) progress.failed += 1;
      // A person cancelled a run of this batch: they want it stopped, so no new task starts (a re-run goes on).
      if (line.status === 'cancelled') cancelled = true;
      o.onResult?.(line);
      report();
    }
  };
  try {
    report();
    const lanes = Promise.all(Array.from({ length: Math.max(1, o.concurrency) }, () => lane()));
    // After an interrupt the lanes may still fail (the connection closes under them): nobody waits for them then.
    lanes.catch(() => undefined);
    await Promise.race([lanes, stopped]);
  } finally {
    clearInterval(ticker);
    await pass;
  }
  return {
    results,
    interrupted: o.signal?.aborted ?? false,
    cancelled,
    previouslyDone: earlier.length,
    previouslyUnsuccessful,
  };
}
