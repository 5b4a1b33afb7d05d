// Per-task resources that tools keep on a worker (a browser page, ...): each registers how to release a task's,
// and the end of a run releases them all on the worker that holds them. Worker-only.

type Cleanup = (taskId: string) => Promise<unknown>;

const cleanups = new Map<string, Cleanup>();

/** `name` identifies the resource in logs; registering a name again replaces it. */
export function registerTaskCleanup(name: string, fn: Cleanup): void {
  cleanups.set(name, fn);
}

/** Releases every resource of the task; one failing does not stop the others. Returns the names that failed. */
export async function releaseTask(taskId: string): Promise<{ name: string; error: string }[]> {
  const failed: { name: string; error: string }[] = [];
  for (const [name, fn] of cleanups) {
    try {
      await fn(taskId);
    } catch (err) {
      failed.push({ name, error: (err as Error).message ?? String(err) });
    }
  }
  return failed;
}
