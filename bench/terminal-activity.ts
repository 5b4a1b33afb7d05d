// Benchmark part (not a test): a trivial tool call measured inside its activity, from the history's
// ActivityTaskStarted to ActivityTaskCompleted timestamps, on the local backend of a real worker.
import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentWorkflow } from '../src/workflows/agent-workflow.js';
import { callActivity } from '../src/common/activity-contract.js';
import { startScriptedModel } from '../test/support/scripted-model.js';
import { durableEnv } from './durable-env.js';
import { summary } from './stats.js';

const ms = (t: { seconds?: unknown; nanos?: number | null } | null | undefined): number =>
  Number(t?.seconds ?? 0) * 1000 + (t?.nanos ?? 0) / 1e6;

type HistoryEvent = NonNullable<Awaited<ReturnType<WorkflowHandle['fetchHistory']>>['events']>[number];

/**
 * Milliseconds from each `type` activity's ActivityTaskStarted to its ActivityTaskCompleted, in history order (the
 * eager try of an environment call, runToolOnHolder, counts as the runTool it is).
 */
export function activitySpans(events: readonly HistoryEvent[], type: string): number[] {
  const scheduled = new Set<string>();
  const started = new Map<string, number>();
  const spans: number[] = [];
  for (const e of events) {
    const sch = e.activityTaskScheduledEventAttributes;
    const s = e.activityTaskStartedEventAttributes;
    const c = e.activityTaskCompletedEventAttributes;
    if (callActivity(sch?.activityType?.name ?? '') === type) scheduled.add(String(e.eventId));
    if (s && scheduled.has(String(s.scheduledEventId))) started.set(String(s.scheduledEventId), ms(e.eventTime));
    const begun = c ? started.get(String(c.scheduledEventId)) : undefined;
    if (begun !== undefined) spans.push(ms(e.eventTime) - begun);
  }
  return spans;
}

/** A trivial command, and a call that starts no process (Temporal's own cost of any tool activity). */
export const TRIVIAL_COMMAND = { name: 'terminal', arguments: { command: 'true' } };
export const NO_PROCESS = { name: 'read_file', arguments: { path: 'note.txt' } };

/** `calls` sequential calls of `call` in one run; the first few (environment start) are left out. */
export async function toolActivity(
  call: { name: string; arguments: Record<string, unknown> },
  calls: number,
  warmup: number,
): Promise<ReturnType<typeof summary>> {
  const env = await durableEnv();
  // One call per model reply, as an agent's turn usually is: calls of one reply that are safe in parallel (like
  // read_file) would run at once and time each other.
  const model = await startScriptedModel([
    ...Array.from({ length: calls + warmup }, () => ({ toolCalls: [call] })),
    { content: 'done' },
  ]);
  try {
    const taskQueue = `bench-env-${randomUUID()}`;
    const worker = await env.worker(taskQueue, model.url);
    const id = `bench-env-${randomUUID()}`;
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-bench-activity-')));
    writeFileSync(join(cwd, 'note.txt'), 'one line\n');
    await worker.runUntil(
      env.client.workflow.execute(agentWorkflow, {
        taskQueue,
        workflowId: id,
        args: [{ task: 'bench', model: 'scripted', cwd, limits: { maxTurns: calls + warmup + 10 } }],
      }),
    );
    if (model.errors.length > 0) throw new Error(model.errors.join('; '));
    const events = (await env.client.workflow.getHandle(id).fetchHistory()).events ?? [];
    const durations = activitySpans(events, 'runTool');
    if (durations.length !== calls + warmup)
      throw new Error(`expected ${calls + warmup} ${call.name} activities in the history, found ${durations.length}`);
    const tools = durations.slice(warmup);
    return summary(tools);
  } finally {
    await model.close();
    await env.close();
  }
}
