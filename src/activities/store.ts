// Store activities: the memory tool, session search, and the transcript every model call records. Worker-only.
import { ApplicationFailure } from '@temporalio/activity';
import { applyMemory } from '../store/memory.js';
import { Store } from '../store/store.js';
import type { TranscriptEntry } from '../common/transcript.js';

let opened: Store | undefined;

/** The process's store under TETHER_HOME, opened on first use. */
export function openStore(): Store {
  try {
    opened ??= new Store();
    return opened;
  } catch (err) {
    throw ApplicationFailure.retryable(
      `store: cannot open the SQLite file under TETHER_HOME: ${(err as Error).message}`,
      'Store.Unavailable',
    );
  }
}

export function createStoreActivities() {
  return {
    async memoryOp(input: {
      action: 'add' | 'replace' | 'remove' | 'read';
      content?: string;
      old_text?: string;
      opId: string;
    }): Promise<{ result: string }> {
      const store = openStore();
      const { opId, ...args } = input;
      return {
        result: args.action === 'read' ? applyMemory(store, args) : store.once(opId, () => applyMemory(store, args)),
      };
    },
    async searchSessions(input: {
      query: string;
      limit: number;
      excludeWorkflowId?: string;
    }): Promise<{ result: string }> {
      const hits = openStore().search(input.query, input.limit, input.excludeWorkflowId);
      return {
        result: JSON.stringify({
          query: input.query,
          results: hits.map((h) => ({
            run: h.workflowId,
            turn: h.turn,
            role: h.role,
            tool: h.tool ?? undefined,
            snippet: h.snippet,
          })),
        }),
      };
    },
    async recordTranscript(input: { workflowId: string; entries: TranscriptEntry[] }): Promise<void> {
      openStore().record(input.workflowId, input.entries);
    },
  };
}
