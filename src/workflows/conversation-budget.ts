// Keeps the conversation sent to the model (an activity input, so part of history) and carried through
// continue-as-new under a size budget: in bytes of the JSON Temporal records, since a payload's limit is in bytes and
// a character can take six of them. Pure and workflow-safe.
import type { ChatMessage } from '../common/types.js';
import { jsonStringBytes } from './payload-limits.js';

/** The budget before byte budgets (recorded histories replay with it): characters of message content. */
export const CONVERSATION_BUDGET_CHARS = 400_000;
/**
 * Bytes of message content as JSON: about the old character budget for English text, and a model call that sends the
 * whole conversation, or a continue-as-new that carries it, stays far below the 1 MiB at which a payload leaves history.
 */
export const CONVERSATION_BUDGET_BYTES = 512 * 1024;
/** What is kept of an old message that had to be shortened. */
const SHORTENED_CHARS = 2_000;

export type SizeMeasure = (messages: ChatMessage[]) => number;

export const conversationSize: SizeMeasure = (messages) =>
  messages.reduce(
    (n, m) => n + (m.content?.length ?? 0) + (m.tool_calls ?? []).reduce((k, c) => k + c.function.arguments.length, 0),
    0,
  );

/** Bytes the conversation's content and tool-call arguments take in a JSON payload (escapes included). */
export const conversationBytes: SizeMeasure = (messages) =>
  messages.reduce(
    (n, m) =>
      n +
      jsonStringBytes(m.content ?? '') +
      (m.tool_calls ?? []).reduce((k, c) => k + jsonStringBytes(c.function.arguments), 0),
    0,
  );

const isHighSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;
const isLowSurrogate = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;

/** The first `n` UTF-16 units of `text`, one fewer rather than half of a 4-byte character. */
export function headOf(text: string, n: number): string {
  return n > 0 && n < text.length && isHighSurrogate(text.charCodeAt(n - 1)) ? text.slice(0, n - 1) : text.slice(0, n);
}

/** The last `n` UTF-16 units of `text`, one fewer rather than half of a 4-byte character. */
export function tailOf(text: string, n: number): string {
  const from = text.length - n;
  if (n <= 0) return '';
  return from > 0 && isLowSurrogate(text.charCodeAt(from)) ? text.slice(from + 1) : text.slice(Math.max(0, from));
}

function shorten(text: string): string {
  const half = SHORTENED_CHARS / 2;
  const head = headOf(text, half);
  const tail = tailOf(text, half);
  return `${head}\n[... ${text.length - head.length - tail.length} characters of this older message removed to keep the conversation within its size budget ...]\n${tail}`;
}

/**
 * Shortens the oldest long messages (tool results first, then other turns) in place until the conversation
 * fits `budget` by `measure`. The system prompt, the task and the latest turn are never shortened. Returns how many were.
 */
export function keepWithinBudget(
  messages: ChatMessage[],
  budget = CONVERSATION_BUDGET_CHARS,
  measure: SizeMeasure = conversationSize,
): number {
  let total = measure(messages);
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
    const before = measure([m]);
    m.content = shorten(m.content!);
    total -= before - measure([m]);
    shortened += 1;
  }
  return shortened;
}
