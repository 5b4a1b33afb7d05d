// Workflow for test/liveness.test.ts (workflow-safe): one activity with a heartbeat timeout and a second attempt.
import { proxyActivities } from '@temporalio/workflow';

/** The activity's result, or the message of its failure. */
export async function oneHeartbeatedCall(heartbeatMs: number): Promise<string> {
  const { work } = proxyActivities<{ work(): Promise<string> }>({
    startToCloseTimeout: '1 minute',
    heartbeatTimeout: heartbeatMs,
    retry: { initialInterval: '100 milliseconds', maximumAttempts: 2 },
  });
  try {
    return await work();
  } catch (err) {
    return `failed: ${(err as Error).message}`;
  }
}
