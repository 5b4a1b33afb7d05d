// Reading an agent run from a client: its live state, and how it ended when it did not complete. Worker-only.
import { WorkflowFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import type { AgentState } from '../common/types.js';
import { STATE_QUERY } from '../common/workflow-messages.js';

/** The `state` query, or undefined when no worker answers within `timeoutMs` (none running, or the run just closed). */
export async function queryRunState(
  client: Client,
  handle: WorkflowHandle,
  timeoutMs: number,
): Promise<AgentState | undefined> {
  try {
    return await client.withDeadline(Date.now() + timeoutMs, () => handle.query<AgentState>(STATE_QUERY));
  } catch {
    return undefined;
  }
}

/** What `handle.result()` threw, as a run status and the message that explains it. */
export function runFailure(err: unknown): { status: 'cancelled' | 'failed'; error: string } {
  const cause = err instanceof WorkflowFailedError ? err.cause : undefined;
  return {
    status: cause?.name === 'CancelledFailure' ? 'cancelled' : 'failed',
    error: cause?.message ?? (err as Error).message,
  };
}
