// Labels (Docker, Daytona) and tags (Vercel Sandbox) that tie an environment to its task and worker, so a dead worker's leftovers can be found. Worker-only.
import { hostname } from 'node:os';
import type { BackendContext } from './backend-types.js';

export function tetherLabels(ctx: Pick<BackendContext, 'taskId' | 'workerId'>): Record<string, string> {
  return {
    'tether.task': ctx.taskId,
    'tether.worker': ctx.workerId,
    'tether.host': hostname(),
    'tether.pid': String(process.pid),
  };
}

/** The filter for sandboxes made on this machine (only here can a worker's pid be checked). */
export function hostLabels(): { 'tether.host': string } {
  return { 'tether.host': hostname() };
}

/** Whether a process with this pid runs on this machine (one of another user's counts). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Made on this host by a worker other than the caller whose process no longer runs. */
export function leftByDeadWorker(labels: Record<string, string> | undefined, ownWorkerId: string): boolean {
  if (!labels || labels['tether.host'] !== hostname() || labels['tether.worker'] === ownWorkerId) return false;
  const pid = Number(labels['tether.pid']);
  return Number.isInteger(pid) && pid > 0 && pid !== process.pid && !pidAlive(pid);
}
