// How the worker's egress gate reaches a run: the `egress` update (a pending approval the run decides like a
// command's), and best-effort signals for hosts decided without asking and for connections that gave up. Worker-only.
import type { Client } from '@temporalio/client';
import type { EgressAnswer, EgressRequest, NetworkReachReport } from '../common/egress-types.js';
import { EGRESS_REACHED_SIGNAL, EGRESS_UPDATE, EGRESS_WITHDRAW_SIGNAL } from '../common/workflow-messages.js';
import type { EgressAsker } from '../environments/egress/gate.js';
import type { Logger } from '../logging/logger.js';

/**
 * An asker over `client`. Each call runs under an abort signal of its own: a task's proxy socket is made inside a
 * tool activity, and its connections' callbacks inherit that activity's call context, whose abort signal fires
 * when that activity is cancelled, long before the task's later connections ask anything.
 */
export function temporalEgressAsker(client: Client, log: Logger): EgressAsker {
  const own = <T>(fn: () => Promise<T>): Promise<T> => client.withAbortSignal(new AbortController().signal, fn);
  const quietly = (workflowId: string, what: string, p: () => Promise<unknown>): void => {
    own(p).catch((err: unknown) =>
      log.warn({ workflowId, err: (err as Error).message?.split('\n')[0] }, `egress: could not tell the run ${what}`),
    );
  };
  return {
    ask: (workflowId: string, req: EgressRequest) =>
      own(() =>
        client.workflow
          .getHandle(workflowId)
          .executeUpdate<EgressAnswer, [EgressRequest]>(EGRESS_UPDATE, { args: [req] }),
      ),
    reached: (workflowId: string, r: NetworkReachReport) =>
      quietly(workflowId, 'a host it reached', () =>
        client.workflow.getHandle(workflowId).signal(EGRESS_REACHED_SIGNAL, r),
      ),
    withdraw: (workflowId: string, requestId: string) =>
      quietly(workflowId, 'that a connection gave up', () =>
        client.workflow.getHandle(workflowId).signal(EGRESS_WITHDRAW_SIGNAL, { requestId }),
      ),
  };
}
