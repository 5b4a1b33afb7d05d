// Transcript entries for a run's messages, numbered by a sequence carried across continue-as-new. Pure and workflow-safe.
import type { ChatMessage } from './types.js';

export interface TranscriptEntry {
  seq: number;
  turn: number;
  role: string;
  /** Tool name for tool results and tool calls. */
  tool?: string;
  content: string;
}

/**
 * Entries for messages[fromIndex..] (and the model's reply, if given), numbered from firstSeq. Tool results belong to
 * the turn whose calls produced them (the one before `turn`); tool names come from the calls in `messages`.
 */
export function transcriptEntries(
  messages: ChatMessage[],
  fromIndex: number,
  firstSeq: number,
  turn: number,
  reply?: ChatMessage,
): TranscriptEntry[] {
  const toolNames = new Map<string, string>();
  for (const m of messages) for (const c of m.tool_calls ?? []) toolNames.set(c.id, c.function.name);
  const entry = (m: ChatMessage, k: number): TranscriptEntry => {
    const calls = (m.tool_calls ?? []).map((c) => `${c.function.name} ${c.function.arguments}`).join('\n');
    const tool = m.role === 'tool' ? toolNames.get(m.tool_call_id ?? '') : m.tool_calls?.[0]?.function.name;
    return {
      seq: firstSeq + k,
      turn: m.role === 'tool' ? Math.max(turn - 1, 0) : turn,
      role: m.role,
      ...(tool ? { tool } : {}),
      content: [m.content ?? '', calls].filter(Boolean).join('\n'),
    };
  };
  return [...messages.slice(fromIndex), ...(reply ? [reply] : [])].map(entry);
}
