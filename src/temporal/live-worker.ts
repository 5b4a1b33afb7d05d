// Whether a worker serves the task queue now, from the server's poller list (one describeTaskQueue call).
// Worker-only (clients use it: a decision goes as an update when a worker answers, else as a signal).
import type { Client } from '@temporalio/client';
import type { TemporalSettings } from './settings.js';

/** A worker polled the task queue recently (pollers long-poll for about a minute, so allow a little more). */
export async function hasLiveWorker(client: Client, settings: TemporalSettings): Promise<boolean> {
  const res = await client.workflowService.describeTaskQueue({
    namespace: settings.namespace,
    taskQueue: { name: settings.taskQueue, kind: 1 },
    taskQueueType: 1,
  });
  const now = Date.now();
  return (res.pollers ?? []).some((p) => now - Number(p.lastAccessTime?.seconds ?? 0) * 1000 < 90_000);
}
