// Keeps the conversation sent to the model (an activity input, so part of history) under a size budget. Pure and workflow-safe.
import type { ChatMessage } from '../common/types.js';

/** Characters of message content; the model call's input stays well under Temporal's 2 MB payload limit. */
const CONVERSATION_BUDGET_CHARS = 400_000;
/** What is kept of an old message that had to be shortened. */
const SHORTENED_CHARS = 2_000;

export const conversationSize = (messages: ChatMessage[]): number =>
  messages.reduce(
    (n, m) => n + (m.content?.length ?? 0) + (m.tool_calls ?? []).reduce((k, c) => k + c.function.arguments.length, 0),
    0,
  );

function shorten(text: string): string {
  const half = SHORTENED_CHARS / 2;
  return `${text.slice(0, half)}\n[... ${text.length - SHORTENED_CHARS} characters of this older message removed to keep the conversation within its size budget ...]\n${text.slice(-half)}`;
}

/**
 * Shortens the oldest long messages (tool results first, then other turns) in place until the conversation
 * fits `budget`. The system prompt, the task and the latest turn are never shortened. Returns how many were.
 */
export function keepWithinBudget(messages: ChatMessage[], budget = CONVERSATION_BUDGET_CHARS): number {
  let total = conversationSize(messages);
  if (total <= budget) return 0;
  const protectedUntil = messages.findIndex((m) => m.role === 'user') + 1; // system prompt and task
  const lastAssistant = messages.map((m) => m.role).lastIndexOf('assistant');
  const candidates = messages
    .map((m, i) => ({ m, i }))
    .filter(({ m, i }) => i >= protectedUntil && i < lastAssistant && (m.content?.length ?? 0) > SHORTENED_CHARS + 200);
  // Tool results first (usually the bulk), oldest first; then other messages.
  candidates.sort((a, b) => Number(b.m.role === 'tool') - Number(a.m.role === 'tool') || a.i - b.i);
  // Last resort: the latest turn's tool results too (32 results of 64 000 characters would pass Temporal's limit).
  const latest = messages
    .map((m, i) => ({ m, i }))
    .filter(({ m, i }) => i > lastAssistant && m.role === 'tool' && (m.content?.length ?? 0) > SHORTENED_CHARS + 200);
  let shortened = 0;
  for (const { m } of [...candidates, ...latest]) {
    if (total <= budget) break;
    const before = m.content!.length;
    m.content = shorten(m.content!);
    total -= before - m.content.length;
    shortened += 1;
  }
  return shortened;
}
