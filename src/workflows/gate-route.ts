// Sends a tool call's approval check (assessCall) to the worker that holds the task's environment, where scripts
// the call runs are read and background processes are known; any worker when none holds it yet. Workflow-safe.
import { proxyActivities } from '@temporalio/workflow';
import type { AgentActivities } from '../common/activity-contract.js';
import type { AssessCallInput, CallAssessment } from '../common/approval-types.js';
import { onHolder, type EnvironmentRoute } from './environment-route.js';

const OPTIONS = {
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', maximumAttempts: 3 },
  summary: 'approval check',
} as const;

/**
 * `heartbeatSeconds`: a check whose worker was killed is noticed by its missing heartbeats, not by its start-to-close
 * timeout. (Timeouts are not part of replay, so histories recorded without it still replay.)
 */
export async function assessRouted(
  route: EnvironmentRoute,
  environment: boolean,
  input: AssessCallInput,
  heartbeatSeconds: number,
): Promise<CallAssessment> {
  const options = { ...OPTIONS, heartbeatTimeout: `${heartbeatSeconds} seconds` };
  const held = environment
    ? await onHolder(
        route,
        options,
        async (opts, holder) => {
          const acts = proxyActivities<AgentActivities>(opts);
          const out = holder
            ? await acts.assessCallOnHolder({ ...input, environmentExpected: true, holder })
            : await acts.assessCall({ ...input, environmentExpected: true });
          return out.misrouted ? 'misrouted' : out;
        },
        true,
      )
    : undefined;
  if (held) return held;
  // No worker holds it, or the holding one is gone: any worker judges it, and the call itself will say the
  // environment was lost.
  const out = await proxyActivities<AgentActivities>(options).assessCall({ ...input, environmentExpected: route.had });
  // Reading a script made the environment on that worker: the call goes there too.
  if (environment && out.workerQueue) {
    route.queue = out.workerQueue;
    route.had = true;
  }
  return out;
}
