// An activity asks the workflow that scheduled it a query (which writes nothing to history), waiting a bounded time
// and heartbeating meanwhile. Worker-only.
import { Context } from '@temporalio/activity';
import { withHeartbeat } from './heartbeat.js';

/** A query waits this long (a workflow whose worker died is replayed elsewhere to answer it). */
const QUERY_TIMEOUT_MS = 15_000;

/**
 * The answer of the activity's own run to `query`, or undefined when there is none in time: no workflow context,
 * no worker to answer, an old workflow without the query, the call cancelled.
 */
export async function queryOwnWorkflow<T>(query: string, timeoutMs = QUERY_TIMEOUT_MS): Promise<T | undefined> {
  const ctx = Context.current();
  const run = ctx.info.workflowExecution;
  if (!run) return undefined;
  try {
    const answer = await withHeartbeat(async (signal) => {
      const asked = ctx.client.workflow.getHandle(run.workflowId, run.runId).query<T | null>(query);
      let timer: NodeJS.Timeout | undefined;
      const stop = new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), timeoutMs);
        signal.addEventListener('abort', () => resolve(null), { once: true });
      });
      try {
        return await Promise.race([asked, stop]);
      } finally {
        clearTimeout(timer);
      }
    });
    return answer ?? undefined;
  } catch {
    return undefined;
  }
}
