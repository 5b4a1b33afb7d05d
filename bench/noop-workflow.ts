// Workflow for benchmarks (workflow-safe): `calls` sequential calls of a no-op activity, Temporal's floor per call.
import { proxyActivities } from '@temporalio/workflow';

const { noop } = proxyActivities<{ noop(i: number): Promise<number> }>({
  startToCloseTimeout: '30 seconds',
  heartbeatTimeout: '30 seconds',
  retry: { maximumAttempts: 1 },
});

export async function noopCalls(calls: number): Promise<number> {
  for (let i = 0; i < calls; i++) await noop(i);
  return calls;
}
