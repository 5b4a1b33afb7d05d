// An activity interceptor: an attempt that takes over from a lost worker moves its run off that worker's sticky
// queue, so the workflow task its result schedules goes straight to a live worker. Worker-only.
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import type { Logger } from '../logging/logger.js';
import { lostWorker } from './heartbeat.js';

/**
 * Without this, the workflow task that follows a taken-over call waits out the sticky-queue timeout on the dead
 * worker's queue before any other worker may replay the run: a second of every takeover. The reset is awaited
 * before the attempt completes, because a workflow task already placed on the sticky queue is not moved by it.
 */
export function releaseLostWorkerSticky(log: Logger): ActivityInterceptorsFactory {
  return (ctx) => ({
    inbound: {
      async execute(input, next) {
        const lost = lostWorker();
        const { workflowExecution, workflowNamespace } = ctx.info;
        if (!lost || !workflowExecution) return next(input);
        const reset = Promise.resolve()
          .then(() =>
            ctx.client.workflowService.resetStickyTaskQueue({
              namespace: workflowNamespace,
              execution: { workflowId: workflowExecution.workflowId, runId: workflowExecution.runId },
            }),
          )
          .then(
            () => log.info({ workflowId: workflowExecution.workflowId, lostWorker: lost }, 'sticky queue released'),
            // Only a second saved is lost: the run still moves on once the sticky timeout passes.
            (err: unknown) =>
              log.warn({ workflowId: workflowExecution.workflowId, lostWorker: lost, err }, 'sticky reset failed'),
          );
        try {
          return await next(input);
        } finally {
          await reset;
        }
      },
    },
  });
}
