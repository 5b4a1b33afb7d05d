// Sizes against Temporal's payload limit: a model reply too large to record, and tool results the workflow makes
// itself (sub-agent answers, memory, search), are turned into something the model sees instead of a failed
// activity or a lost turn. Pure and workflow-safe.
import type { ChatMessage, ModelReply } from '../common/types.js';

/** Temporal's default per-payload limit (the server's `limit.blobSize.error`): a larger result fails to record. */
export const TEMPORAL_PAYLOAD_LIMIT_BYTES = 2 * 1024 * 1024;
/**
 * The largest model reply recorded as it is. Its tool calls' arguments go on into a tool activity's input and into
 * every later model request, so it stays at Temporal's warning size, far below the limit.
 */
const MAX_REPLY_BYTES = 512 * 1024;
/** Results that the workflow makes itself (delegate_task, memory, session_search) are capped like tool results. */
const MAX_LOOP_RESULT_CHARS = 64_000;

/** UTF-8 length without TextEncoder (not every workflow sandbox has one). A lone surrogate counts as U+FFFD does. */
export function utf8Bytes(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i += 1;
      } else n += 3;
    } else n += 3;
  }
  return n;
}

/**
 * Bytes of `JSON.stringify(text)` in UTF-8, quotes included, counted without making it: what a string takes in a
 * payload. Escapes count (a control character is six bytes, `\u0001`), as does a surrogate without its pair.
 */
export function jsonStringBytes(text: string): number {
  let n = 2;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 0x22 || c === 0x5c || c === 0x08 || c === 0x0c || c === 0x0a || c === 0x0d || c === 0x09) n += 2;
    else if (c < 0x20) n += 6;
    else if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      const d = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i += 1;
      } else n += 6;
    } else if (c >= 0xdc00 && c <= 0xdfff) n += 6;
    else n += 3;
  }
  return n;
}

/** Bytes of a value as the default payload converter writes it (JSON in UTF-8). */
export function jsonBytes(value: unknown): number {
  return value === undefined ? 0 : utf8Bytes(JSON.stringify(value) ?? '');
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${bytes} bytes`;
}

/** The bytes a reply's message takes (content and every tool call's arguments). */
function replyBytes(message: ChatMessage): number {
  return (
    utf8Bytes(message.content ?? '') +
    (message.tool_calls ?? []).reduce((n, c) => n + utf8Bytes(c.function.arguments) + utf8Bytes(c.function.name), 0)
  );
}

const PREVIEW_CHARS = 1_000;

/**
 * A reply over `limit` is replaced by one that fits: its text is cut to a preview and its tool calls keep their
 * ids and names with the arguments left out, and `oversized` tells the workflow to answer them with an error
 * instead of running them. Calling the model again would give the same reply, so nothing is retried.
 */
export function fitReply(reply: ModelReply, limit = MAX_REPLY_BYTES): ModelReply {
  const bytes = replyBytes(reply.message);
  if (bytes <= limit) return reply;
  const content = reply.message.content;
  const cut =
    content !== null && content.length > PREVIEW_CHARS
      ? `${content.slice(0, PREVIEW_CHARS)}\n[... the rest of this reply was removed: it was ${formatBytes(bytes)} ...]`
      : content;
  const calls = reply.message.tool_calls?.map((c) => ({
    ...c,
    function: {
      name: c.function.name,
      arguments: JSON.stringify({
        omitted: `${formatBytes(utf8Bytes(c.function.arguments))} of arguments, over the reply size limit`,
      }),
    },
  }));
  return {
    ...reply,
    message: { ...reply.message, content: cut, ...(calls ? { tool_calls: calls } : {}) },
    oversized: { bytes, limit },
  };
}

function oversizedMessage(o: { bytes: number; limit: number }): string {
  return (
    `Your reply was ${formatBytes(o.bytes)}; the limit is ${formatBytes(o.limit)} (${o.limit} bytes), so it was not carried out. ` +
    'Write large content in parts: a first part with write_file, then the rest appended in further calls (for example terminal with `cat >> file`), each well under the limit.'
  );
}

/** What the model is told about an oversized reply: an error result for each tool call, or a note when it had none. */
export function oversizedFollowUp(reply: ModelReply & { oversized: { bytes: number; limit: number } }): ChatMessage[] {
  const text = oversizedMessage(reply.oversized);
  const calls = reply.message.tool_calls ?? [];
  if (calls.length === 0) return [{ role: 'user', content: `[tether] ${text}` }];
  return calls.map((c) => ({
    role: 'tool',
    tool_call_id: c.id,
    content: JSON.stringify({ error: text, not_run: true }),
  }));
}

/** Caps a result the workflow made itself, keeping its start and end. */
export function capLoopResult(text: string, maxChars = MAX_LOOP_RESULT_CHARS): string {
  if (text.length <= maxChars) return text;
  const half = Math.floor(maxChars / 2);
  return JSON.stringify({
    truncated: true,
    original_chars: text.length,
    content: `${text.slice(0, half)}\n[... ${text.length - 2 * half} characters cut ...]\n${text.slice(-half)}`,
  });
}
