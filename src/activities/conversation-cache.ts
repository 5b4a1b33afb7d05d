// The worker's cache of conversations and tool lists, by digest, so a model call's input names what this worker
// already holds instead of carrying the whole conversation into history again. Bounded (least recently used go
// first); a miss is a typed, non-retryable failure and the workflow sends everything once. Worker-only.
import { ApplicationFailure } from '@temporalio/activity';
import type { ConversationRef } from '../common/activity-contract.js';
import { digestConversation, digestMessage, digestText } from '../common/conversation-digest.js';
import type { ToolDefinition } from '../common/tool-definition.js';
import type { ChatMessage } from '../common/types.js';
import { BoundedMap } from './bounded-map.js';

/** The failure type the workflow answers by sending the whole conversation. */
export const CACHE_MISS_TYPE = 'Model.ConversationCacheMiss';

interface Entry {
  id: string;
  messages: ChatMessage[];
}

const messageChars = (m: ChatMessage): number =>
  (m.content?.length ?? 0) + (m.tool_calls ?? []).reduce((n, c) => n + c.function.arguments.length, 0);

export const isCacheMiss = (err: unknown): boolean => err instanceof ApplicationFailure && err.type === CACHE_MISS_TYPE;

function miss(what: string): never {
  throw ApplicationFailure.nonRetryable(`conversation cache miss: ${what}`, CACHE_MISS_TYPE);
}

export interface CacheLimits {
  /** Characters of message content held over all cached conversations (versions share messages; counted apiece). */
  maxChars: number;
  /** Conversations (versions) held. */
  maxEntries: number;
}

export class ConversationCache {
  /** Key `${id} ${digest}`; the least recently used conversation goes first. */
  private readonly entries: BoundedMap<string, Entry>;
  /** Tool lists by digest. */
  private readonly tools = new BoundedMap<string, ToolDefinition[]>({ maxEntries: 32 });
  /** Messages made on this worker (tool results), by digest, for a model call to name instead of carry. */
  private readonly made: BoundedMap<string, ChatMessage>;

  constructor(limits: CacheLimits = { maxChars: 50_000_000, maxEntries: 500 }) {
    this.entries = new BoundedMap({
      maxEntries: limits.maxEntries,
      maxSize: limits.maxChars,
      sizeOf: (e) => e.messages.reduce((n, m) => n + messageChars(m), 0),
    });
    this.made = new BoundedMap({
      maxEntries: limits.maxEntries * 20,
      maxSize: limits.maxChars / 4,
      sizeOf: messageChars,
    });
  }

  /** The whole conversation and tool list of a call, from its input and what this worker holds; throws a miss. */
  resolve(
    ref: ConversationRef & { id: string },
    messages: ChatMessage[],
    tools: ToolDefinition[],
  ): { messages: ChatMessage[]; tools: ToolDefinition[] } {
    let full = messages;
    if (ref.base !== undefined) {
      const base = this.entries.get(`${ref.id} ${ref.base}`);
      if (!base) miss(`this worker does not hold conversation ${ref.id} at ${ref.base}`);
      full = [];
      for (const part of ref.layout ?? []) {
        if (typeof part === 'number') {
          const m = messages[part];
          if (!m) miss(`layout names message ${part} of ${messages.length}`);
          full.push(m);
        } else if (typeof part === 'string') {
          const m = this.made.peek(part);
          if (!m) miss(`this worker does not hold message ${part}`);
          full.push(m);
        } else {
          const [from, to] = part;
          if (!(from >= 0 && from <= to && to <= base.messages.length)) miss(`layout range ${from}..${to} is outside`);
          full.push(...base.messages.slice(from, to));
        }
      }
    }
    const digests = full.map(digestMessage);
    if (digestConversation(digests) !== ref.digest) miss(`conversation ${ref.id} does not match its digest`);
    let toolList = tools;
    if (digestText(JSON.stringify(tools)) === ref.tools) this.tools.set(ref.tools, tools);
    else {
      const held = this.tools.peek(ref.tools);
      if (!held) miss(`this worker does not hold tool list ${ref.tools}`);
      toolList = held;
    }
    return { messages: full, tools: toolList };
  }

  /** Holds `messages` (a conversation with its reply) for the next call to refer to; returns its digest. */
  store(id: string, messages: ChatMessage[]): string {
    const digest = digestConversation(messages.map(digestMessage));
    // Older versions of the same conversation are not referred to again once a newer one answered.
    for (const [key, e] of this.entries.entries()) if (e.id === id) this.entries.delete(key);
    this.entries.set(`${id} ${digest}`, { id, messages });
    return digest;
  }

  /** Holds a tool list (as listed for a run), so the run's model calls can name it by digest. */
  holdTools(tools: ToolDefinition[]): void {
    const copy = JSON.parse(JSON.stringify(tools)) as ToolDefinition[];
    this.tools.set(digestText(JSON.stringify(copy)), copy);
  }

  /** Holds a message made here (a tool call's result message), so the next model call can name it by digest. */
  holdMessage(message: ChatMessage): void {
    const digest = digestMessage(message);
    if (!this.made.has(digest)) this.made.set(digest, message);
  }

  /** The first user message of the run's conversation held here (the task, in a run started from one). */
  firstUserMessage(id: string): string | undefined {
    for (const e of this.entries.values()) {
      if (e.id !== id) continue;
      const content = e.messages.find((m) => m.role === 'user')?.content;
      if (typeof content === 'string') return content;
    }
    return undefined;
  }

  /** Forgets everything (a test's fresh-worker case, without a new process). */
  clear(): void {
    this.entries.clear();
    this.tools.clear();
    this.made.clear();
  }
}
