// The task queue runs go to when TETHER_TASK_QUEUE is unset: with a Temporal server on this machine, one queue per
// TETHER_HOME, so a run started from one home is never taken by a worker of another (whose transcripts, checkpoints
// and config are elsewhere); with a server elsewhere (a cluster, Temporal Cloud) the shared `tether`, so workers on
// many machines serve one queue. Worker-only.
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { tetherHome } from '../config/home.js';

/** The queue every worker of a cluster shares unless TETHER_TASK_QUEUE names another. */
export const SHARED_QUEUE = 'tether';

/** Where the task queue came from, for the lines that name it. */
export type QueueSource = 'TETHER_TASK_QUEUE' | 'TETHER_HOME' | 'shared';

/** A host that is this machine: the dev server tether starts, or one a person runs here. */
export function isLocalHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}

/** `tether-` and 8 hex digits of the home's real path: the same for every process of one home, on one machine. */
export function homeQueue(home: string): string {
  let path = home;
  try {
    path = realpathSync(home);
  } catch {
    // not made yet: the path as given (ensureTetherHome makes it before any run starts)
  }
  return `${SHARED_QUEUE}-${createHash('sha256').update(path).digest('hex').slice(0, 8)}`;
}

/** The default queue for a server at `address` (undefined: tether's own dev server on this machine). */
export function defaultQueue(
  address: string | undefined,
  env: Record<string, string | undefined> = process.env,
): { taskQueue: string; source: QueueSource } {
  const host = address === undefined ? '127.0.0.1' : address.replace(/:\d+$/, '');
  return isLocalHost(host)
    ? { taskQueue: homeQueue(tetherHome(env)), source: 'TETHER_HOME' }
    : { taskQueue: SHARED_QUEUE, source: 'shared' };
}

/** How a line names the queue: `tether-1a2b3c4d (this TETHER_HOME's)`. */
export function describeQueue(taskQueue: string, source: QueueSource | undefined): string {
  if (source === 'TETHER_HOME') return `${taskQueue} (this TETHER_HOME's)`;
  if (source === 'TETHER_TASK_QUEUE') return `${taskQueue} (TETHER_TASK_QUEUE)`;
  return taskQueue;
}
