// Workflow for benchmarks (workflow-safe): `calls` sequential calls of a no-op activity, Temporal's floor per call.
import { proxyActivities } from '@temporalio/workflow';

/**
 * On `activityQueue`, another task queue than the workflow's: as tether's tool calls go to the queue of the worker
 * holding the task's environment, the call goes through matching (on the workflow's own queue the SDK would ask for
 * eager dispatch, and the activity would come back with the workflow task's completion instead).
 */
export async function noopCalls(calls: number, activityQueue: string): Promise<number> {
  const { noop } = proxyActivities<{ noop(i: number): Promise<number> }>({
    taskQueue: activityQueue,
    startToCloseTimeout: '30 seconds',
    heartbeatTimeout: '30 seconds',
    retry: { maximumAttempts: 1 },
  });
  for (let i = 0; i < calls; i++) await noop(i);
  return calls;
}
