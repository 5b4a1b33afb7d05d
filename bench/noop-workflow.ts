// Workflow for benchmarks (workflow-safe): `calls` sequential calls of a no-op activity, Temporal's floor per call.
import { proxyActivities } from '@temporalio/workflow';

/**
 * On the workflow's own queue (`activityQueue` undefined) the SDK asks for eager dispatch: the activity comes back
 * with the workflow task's completion, as tether's tool calls do. On another queue, the call goes through matching,
 * as a tool call sent to the holding worker's own queue does.
 */
export async function noopCalls(calls: number, activityQueue?: string): Promise<number> {
  const { noop } = proxyActivities<{ noop(i: number): Promise<number> }>({
    ...(activityQueue ? { taskQueue: activityQueue } : {}),
    startToCloseTimeout: '30 seconds',
    heartbeatTimeout: '30 seconds',
    retry: { maximumAttempts: 1 },
  });
  for (let i = 0; i < calls; i++) await noop(i);
  return calls;
}
