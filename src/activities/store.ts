// Store activities: the memory tool, session search, and the transcript every model call records. With
// `store.shared` (the default) memory is the deployment's shared memory workflow and transcripts also go to its
// session journal, which a search reads first; this worker's SQLite file stays its search index. Worker-only.
import { ApplicationFailure, Context } from '@temporalio/activity';
import { WorkflowNotFoundError } from '@temporalio/client';
import { applyMemory } from '../store/memory.js';
import { seedFrom, sharedMemoryOp } from '../store/shared-memory.js';
import { appendToJournal, syncJournal } from '../store/session-journal.js';
import { Store } from '../store/store.js';
import type { TranscriptEntry } from '../common/transcript.js';
import { getLogger } from '../logging/logger.js';
import { withHeartbeat } from './heartbeat.js';
import { sharedQueueOf } from '../common/task-queues.js';

let opened: Store | undefined;
let shared = true;

/** Whether this worker shares memory and transcripts through Temporal (`store.shared`). */
export function configureStore(settings: { shared: boolean }): void {
  shared = settings.shared;
}

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

/**
 * The deployment an activity works for: its shared queue (a model call runs on the model calls' queue, where no
 * journal workflow runs: waiting on one there cost every model call the whole journal wait).
 */
function deployment(): string {
  return sharedQueueOf(Context.current().info.taskQueue);
}

/** How long recording waits for the journal before the model call goes on without it. */
const JOURNAL_WAIT_MS = 15_000;

/** A journal append stays well under the payload limit: a long turn's entries go in several. */
const JOURNAL_BATCH_BYTES = 256 * 1024;

function batches(entries: TranscriptEntry[]): TranscriptEntry[][] {
  const out: TranscriptEntry[][] = [];
  let size = 0;
  for (const e of entries) {
    const bytes = Buffer.byteLength(e.content, 'utf8') + 64;
    if (out.length === 0 || size + bytes > JOURNAL_BATCH_BYTES) {
      out.push([]);
      size = 0;
    }
    out.at(-1)!.push(e);
    size += bytes;
  }
  return out;
}

/**
 * Records a run's transcript entries in this worker's index and, when shared, in the deployment's journal. Best
 * effort: a store problem never fails the model call or the run; it is logged.
 */
export async function recordTranscriptEntries(workflowId: string, entries: TranscriptEntry[]): Promise<void> {
  const at = new Date().toISOString();
  try {
    openStore().record(workflowId, entries);
    if (!shared) return;
    const client = Context.current().client;
    const store = openStore();
    const appended = (async (): Promise<true> => {
      for (const part of batches(entries))
        await appendToJournal(client, deployment(), store, { workflowId, entries: part.map((e) => ({ ...e, at })) });
      return true;
    })().catch((err: unknown) => {
      getLogger().warn({ workflowId, err: (err as Error).message }, 'transcript not shared');
      return true as const;
    });
    // Bounded: a journal that does not answer costs the run no model call (the entries stay in this worker's store).
    // Heartbeating meanwhile: a model call's activity has a 2 s heartbeat timeout, and a busy server can take longer.
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), JOURNAL_WAIT_MS)));
    const done = await withHeartbeat(() => Promise.race([appended, late])).finally(() => clearTimeout(timer));
    if (!done) getLogger().warn({ workflowId }, 'transcript not shared: the session journal did not answer in time');
  } catch (err) {
    getLogger().warn({ workflowId, err: (err as Error).message }, 'transcript not recorded');
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
      const { opId, ...args } = input;
      if (shared) {
        const store = openStore();
        return {
          result: await sharedMemoryOp(Context.current().client, deployment(), opId, args, () =>
            seedFrom(store.memory()),
          ),
        };
      }
      const store = openStore();
      return {
        result: args.action === 'read' ? applyMemory(store, args) : store.once(opId, () => applyMemory(store, args)),
      };
    },
    async searchSessions(input: {
      query: string;
      limit: number;
      excludeWorkflowId?: string;
    }): Promise<{ result: string }> {
      const store = openStore();
      let note: string | undefined;
      if (shared) {
        try {
          const read = await withHeartbeat(() => syncJournal(Context.current().client, deployment(), store));
          if (!read.complete)
            note =
              'the shared session journal is still being read here: runs of other workers may be missing (a later search reads on)';
        } catch (err) {
          // What this worker has is still searched; the model is told the rest may be missing.
          note = `runs of other workers may be missing: the shared session journal could not be read (${(err as Error).message.split('\n')[0]})`;
          getLogger().warn({ err: (err as Error).message }, 'session journal not read');
        }
      }
      const hits = store.search(input.query, input.limit, input.excludeWorkflowId);
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
          ...(note ? { note } : {}),
        }),
      };
    },
    async recordTranscript(input: { workflowId: string; entries: TranscriptEntry[] }): Promise<void> {
      await recordTranscriptEntries(input.workflowId, input.entries);
    },
    /** Whether any run of a workflow id is still known to the server (a payload blob outlives none). */
    async runExists(input: { workflowId: string }): Promise<boolean> {
      try {
        await Context.current().client.workflow.getHandle(input.workflowId).describe();
        return true;
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) return false;
        throw err;
      }
    },
  };
}
