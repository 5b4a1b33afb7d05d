// Benchmark part (not a test): a trivial `terminal` call measured inside its activity, from the history's
// ActivityTaskStarted to ActivityTaskCompleted timestamps, on the local backend of a real worker.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentWorkflow } from '../src/workflows/agent-workflow.js';
import { startScriptedModel } from '../test/support/scripted-model.js';
import { durableEnv } from './durable-env.js';
import { summary } from './stats.js';

const ms = (t: { seconds?: unknown; nanos?: number | null } | null | undefined): number =>
  Number(t?.seconds ?? 0) * 1000 + (t?.nanos ?? 0) / 1e6;

/** `calls` sequential `terminal: true` calls in one run; the first few (environment start) are left out. */
export async function terminalActivity(calls: number, warmup: number): Promise<ReturnType<typeof summary>> {
  const env = await durableEnv();
  const model = await startScriptedModel([
    {
      toolCalls: Array.from({ length: calls + warmup }, () => ({ name: 'terminal', arguments: { command: 'true' } })),
    },
    { content: 'done' },
  ]);
  try {
    const taskQueue = `bench-env-${randomUUID()}`;
    const worker = await env.worker(taskQueue, model.url);
    const id = `bench-env-${randomUUID()}`;
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-bench-activity-')));
    await worker.runUntil(
      env.client.workflow.execute(agentWorkflow, {
        taskQueue,
        workflowId: id,
        args: [{ task: 'bench', model: 'scripted', cwd, limits: { maxToolCallsPerTurn: calls + warmup } }],
      }),
    );
    if (model.errors.length > 0) throw new Error(model.errors.join('; '));
    const events = (await env.client.workflow.getHandle(id).fetchHistory()).events ?? [];
    const tool = new Set<string>();
    const started = new Map<string, number>();
    const durations: number[] = [];
    for (const e of events) {
      const sch = e.activityTaskScheduledEventAttributes;
      const s = e.activityTaskStartedEventAttributes;
      const c = e.activityTaskCompletedEventAttributes;
      if (sch?.activityType?.name === 'runTool') tool.add(String(e.eventId));
      if (s && tool.has(String(s.scheduledEventId))) started.set(String(s.scheduledEventId), ms(e.eventTime));
      const begun = c ? started.get(String(c.scheduledEventId)) : undefined;
      if (begun !== undefined) durations.push(ms(e.eventTime) - begun);
    }
    if (durations.length !== calls + warmup)
      throw new Error(`expected ${calls + warmup} terminal activities in the history, found ${durations.length}`);
    const tools = durations.slice(warmup);
    return summary(tools);
  } finally {
    await model.close();
    await env.close();
  }
}
