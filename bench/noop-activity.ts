// Benchmark part (not a test): Temporal's own floor for one activity, bare SDK workers running a no-op activity on
// the workflow's queue (eager dispatch, as tether's tool calls) or on another one (through matching, as a call sent to
// the holding worker's own queue), from the history's ActivityTaskStarted to ActivityTaskCompleted timestamps, as the
// tool-call figures are taken.
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { durableEnv } from './durable-env.js';
import { activitySpans } from './terminal-activity.js';
import { summary } from './stats.js';

/** `calls` sequential no-op activities in one run of a one-loop workflow; the first `warmup` are left out. */
export async function sdkNoopActivity(
  calls: number,
  warmup: number,
  eager: boolean,
): Promise<ReturnType<typeof summary>> {
  const env = await durableEnv();
  try {
    const workflowBundle = await bundleWorkflowCode({
      workflowsPath: fileURLToPath(new URL('./noop-workflow.ts', import.meta.url)),
      logger: undefined,
    });
    const taskQueue = `bench-noop-${randomUUID()}`;
    const activityQueue = `${taskQueue}-activities`;
    const noop = { noop: async (i: number) => i };
    const workflows = await Worker.create({
      connection: env.native,
      taskQueue,
      workflowBundle,
      ...(eager ? { activities: noop } : {}),
    });
    const activities = await Worker.create({
      connection: env.native,
      taskQueue: activityQueue,
      activities: noop,
    });
    const id = `bench-noop-${randomUUID()}`;
    await activities.runUntil(
      workflows.runUntil(
        env.client.workflow.execute('noopCalls', {
          taskQueue,
          workflowId: id,
          args: [calls + warmup, eager ? undefined : activityQueue],
        }),
      ),
    );
    const events = (await env.client.workflow.getHandle(id).fetchHistory()).events ?? [];
    const spans = activitySpans(events, 'noop');
    if (spans.length !== calls + warmup)
      throw new Error(`expected ${calls + warmup} no-op activities, found ${spans.length}`);
    return summary(spans.slice(warmup));
  } finally {
    await env.close();
  }
}
