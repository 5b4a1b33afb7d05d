// Compaction: when the conversation grows past a threshold, older turns are replaced by a summary made through a
// model call, and recent turns are kept as they are. Workflow-safe (the model call is an activity of the caller's).
import type { CompactionSettings, ChatMessage } from '../common/types.js';
import { conversationSize } from './conversation-budget.js';

const DEFAULT_COMPACTION_CHARS = 120_000;
const DEFAULT_KEEP = 12;
const SUMMARY_PREFIX = '[Summary of the earlier conversation, written to keep within the context]';

interface CompactionPlan {
  /** System prompt and task, kept. */
  head: ChatMessage[];
  /** Summarised. */
  middle: ChatMessage[];
  /** Kept as they are; starts at an assistant or user message, so no tool result loses its call. */
  tail: ChatMessage[];
}

export function planCompaction(messages: ChatMessage[], settings: CompactionSettings = {}): CompactionPlan | null {
  if (conversationSize(messages) <= (settings.thresholdChars ?? DEFAULT_COMPACTION_CHARS)) return null;
  const headEnd = messages.findIndex((m) => m.role === 'user') + 1;
  let cut = Math.max(headEnd, messages.length - (settings.keepRecentMessages ?? DEFAULT_KEEP));
  while (cut < messages.length && messages[cut]!.role === 'tool') cut += 1;
  if (cut - headEnd < 2) return null;
  return { head: messages.slice(0, headEnd), middle: messages.slice(headEnd, cut), tail: messages.slice(cut) };
}

/** The request that asks the model for the summary. */
export function summaryRequest(middle: ChatMessage[]): ChatMessage[] {
  const lines = middle.map((m) => {
    const calls = (m.tool_calls ?? [])
      .map((c) => `${c.function.name}(${c.function.arguments.slice(0, 500)})`)
      .join('; ');
    const text = (m.content ?? '').slice(0, 2_000);
    return `${m.role}${calls ? ` calls ${calls}` : ''}: ${text}`;
  });
  return [
    {
      role: 'system',
      content:
        "Summarise this part of an agent's conversation for the agent itself: what was asked, what was done (tools, files, commands), " +
        'what was found, decisions and open problems. Be specific (names, paths, values); at most 400 words.',
    },
    { role: 'user', content: lines.join('\n') },
  ];
}

export function compacted(plan: CompactionPlan, summary: string): ChatMessage[] {
  return [...plan.head, { role: 'user', content: `${SUMMARY_PREFIX}\n${summary}` }, ...plan.tail];
}
