// The task queues of one tether deployment, derived from its shared queue: one place, for the workflow that
// schedules on them and the worker that polls them. Workflow-safe.

/**
 * Model calls: polled by every worker with slots of their own, so a flood of tool calls (shells, browsers) cannot
 * hold a run's next model call up, nor a flood of model calls a run's commands.
 */
export function modelCallQueue(taskQueue: string): string {
  return `${taskQueue}.model-calls`;
}

/**
 * The deployment's shared queue from any of its queues (an activity's: the shared one, a worker's own `@id` or the
 * model calls'): where its workflows (memory, journal, blobs) run.
 */
export function sharedQueueOf(queue: string): string {
  return queue.replace(/@.*$/, '').replace(/\.model-calls$/, '');
}

/** The queue only one worker process polls: tool calls of tasks whose environment it holds go there. */
export function ownQueueOf(taskQueue: string, workerId: string): string {
  return `${taskQueue}@${workerId}`;
}

/**
 * The failure type of a later attempt of a holder's call that reached another worker: the earlier attempt may have run
 * on the holder, which was lost or too busy to answer, so nothing may run it again (src/workflows/environment-route.ts).
 */
export const HOLDER_LOST = 'Holder.Lost';
