// Store activities: the memory tool, session search, and the transcript every model call records. Worker-only.
import { ApplicationFailure } from '@temporalio/activity';
import { applyMemory } from '../store/memory.js';
import { Store, type TranscriptEntry } from '../store/store.js';
import type { CallModelInput } from '../workflows/activity-contract.js';
import type { ChatMessage, ModelReply } from '../workflows/types.js';

let opened: Store | undefined;

/** The process's store under TETHER_HOME, opened on first use. */
export function openStore(): Store {
  try {
    opened ??= new Store();
    return opened;
  } catch (err) {
    throw ApplicationFailure.retryable(`store: cannot open the SQLite file under TETHER_HOME: ${(err as Error).message}`, 'Store.Unavailable');
  }
}

/** Transcript entries for messages[fromIndex..] and the reply, tool results named by their call. */
export function transcriptEntries(input: CallModelInput, reply: ModelReply): TranscriptEntry[] {
  const t = input.transcript!;
  const toolNames = new Map<string, string>();
  for (const m of input.messages) for (const c of m.tool_calls ?? []) toolNames.set(c.id, c.function.name);
  const entry = (m: ChatMessage, k: number): TranscriptEntry => {
    const calls = (m.tool_calls ?? []).map((c) => `${c.function.name} ${c.function.arguments}`).join('\n');
    return {
      seq: t.firstSeq + k,
      turn: t.turn,
      role: m.role,
      tool: m.role === 'tool' ? toolNames.get(m.tool_call_id ?? '') : (m.tool_calls?.[0]?.function.name ?? undefined),
      content: [m.content ?? '', calls].filter(Boolean).join('\n'),
    };
  };
  return [...input.messages.slice(t.fromIndex), reply.message].map(entry);
}

export function createStoreActivities() {
  return {
    async memoryOp(input: { action: 'add' | 'replace' | 'remove' | 'read'; content?: string; old_text?: string; opId: string }): Promise<{ result: string }> {
      const store = openStore();
      const { opId, ...args } = input;
      return { result: args.action === 'read' ? applyMemory(store, args) : store.once(opId, () => applyMemory(store, args)) };
    },
    async searchSessions(input: { query: string; limit: number; excludeWorkflowId?: string }): Promise<{ result: string }> {
      const hits = openStore().search(input.query, input.limit, input.excludeWorkflowId);
      return { result: JSON.stringify({ query: input.query, results: hits.map((h) => ({ run: h.workflowId, turn: h.turn, role: h.role, tool: h.tool ?? undefined, snippet: h.snippet })) }) };
    },
    async recordTranscript(input: { workflowId: string; entries: TranscriptEntry[] }): Promise<void> {
      openStore().record(input.workflowId, input.entries);
    },
  };
}
