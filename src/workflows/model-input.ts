// Model calls whose recorded input is what is new since the last call: messages the worker already holds are named
// by digest and range, and on a cache miss (another worker, a restart, an eviction) the whole conversation is
// sent once. So history records each message about once instead of once per later turn. Workflow-safe.
import { ActivityFailure, ApplicationFailure, defineQuery, patched, setHandler } from '@temporalio/workflow';
import type { AgentActivities, CallModelInput, ConversationRef } from '../common/activity-contract.js';
import { digestConversation, digestMessage, digestText, type HeldConversation } from '../common/conversation-digest.js';
import type { ChatMessage, ModelReply } from '../common/types.js';
import { MODEL_REQUEST_QUERY } from '../common/workflow-messages.js';
import { summaryRequest } from './compaction.js';

/** Added with the conversation cache; histories recorded before it replay sending the whole conversation. */
const DELTA_PATCH = 'model-input-delta';
/**
 * The model request in flight, whole: a worker that misses its cache asks for it (a query records nothing), so a
 * miss costs history nothing while a worker can answer (src/activities/conversation-rebuild.ts).
 */
const modelRequestQuery = defineQuery<Pick<CallModelInput, 'messages' | 'tools'> | null>(MODEL_REQUEST_QUERY);
/** Must equal the worker's CACHE_MISS_TYPE (src/activities/conversation-cache.ts). */
const CACHE_MISS_TYPE = 'Model.ConversationCacheMiss';

interface Held {
  digests: string[];
  digest: string;
  tools: string;
}

export interface ModelRequest {
  model: string;
  messages: ChatMessage[];
  tools: CallModelInput['tools'];
  transcript?: CallModelInput['transcript'];
  /** `messages` is the part of the conversation to summarise (compaction). */
  summarise?: boolean;
}

const isCacheMiss = (err: unknown): boolean =>
  err instanceof ActivityFailure && err.cause instanceof ApplicationFailure && err.cause.type === CACHE_MISS_TYPE;

/**
 * The conversation as ranges of `held`, digests of messages in `made` (tool results the worker made), and indexes
 * into the new messages (which are returned with it).
 */
function layoutOf(
  digests: string[],
  held: Held,
  made: Set<string>,
  messages: ChatMessage[],
): Pick<CallModelInput, 'messages'> & {
  layout: ([number, number] | number | string)[];
} {
  const at = new Map<string, number>();
  held.digests.forEach((d, i) => {
    if (!at.has(d)) at.set(d, i);
  });
  const layout: ([number, number] | number | string)[] = [];
  const fresh: ChatMessage[] = [];
  for (let i = 0; i < digests.length;) {
    const from = at.get(digests[i]!);
    if (from === undefined && made.has(digests[i]!)) {
      layout.push(digests[i]!);
      i += 1;
      continue;
    }
    if (from === undefined) {
      layout.push(fresh.length);
      fresh.push(messages[i]!);
      i += 1;
      continue;
    }
    let to = from + 1;
    i += 1;
    while (i < digests.length && to < held.digests.length && held.digests[to] === digests[i]) {
      to += 1;
      i += 1;
    }
    layout.push([from, to]);
  }
  return { messages: fresh, layout };
}

export class ModelInput {
  private held?: Held;
  /** Digests of tool result messages made by a tool activity since the last model call: its worker holds them. */
  private made = new Set<string>();
  private inFlight: Pick<CallModelInput, 'messages' | 'tools'> | null = null;

  /** `carried` is what the previous run believed; it holds only if the carried messages still match it. */
  constructor(
    carried?: HeldConversation,
    messages: ChatMessage[] = [],
    private readonly whole = false,
  ) {
    setHandler(modelRequestQuery, () => this.inFlight);
    if (!carried || carried.count > messages.length) return;
    const digests = messages.slice(0, carried.count).map(digestMessage);
    if (digestConversation(digests) === carried.digest)
      this.held = { digests, digest: carried.digest, tools: carried.tools };
  }

  /** A tool activity's result, as the message the workflow will make of it (tool-batch.ts) and its worker holds. */
  noteToolResult(callId: string, result: string): void {
    this.made.add(digestMessage({ role: 'tool', tool_call_id: callId, content: result }));
  }

  carry(): HeldConversation | undefined {
    return this.held && { count: this.held.digests.length, digest: this.held.digest, tools: this.held.tools };
  }

  async call(activities: AgentActivities, req: ModelRequest): Promise<ModelReply> {
    const { summarise, ...plain } = req;
    if (this.whole || !patched(DELTA_PATCH))
      return activities.callModel(summarise ? { ...plain, messages: summaryRequest(req.messages), tools: [] } : plain);
    const digests = req.messages.map(digestMessage);
    // No run id: the activity reads its workflow's id from its own context (src/activities/model.ts, runOf).
    const ref: ConversationRef = {
      digest: digestConversation(digests),
      tools: digestText(JSON.stringify(req.tools)),
    };
    const summary = summarise ? { summarise } : {};
    this.inFlight = { messages: req.messages, tools: req.tools };
    // First try: name what the worker should hold (the conversation it answered last, tool results it made, the
    // tool list it listed); the messages it cannot have are sent.
    const held = this.held;
    const first = held
      ? { ...layoutOf(digests, held, this.made, req.messages), base: held.digest }
      : { messages: req.messages };
    let reply: ModelReply;
    try {
      reply = await activities.callModel({
        ...plain,
        ...summary,
        messages: first.messages,
        tools: [],
        conversation: { ...ref, ...('base' in first ? { base: first.base, layout: first.layout } : {}) },
      });
    } catch (err) {
      if (!isCacheMiss(err)) throw err;
      // A miss (another worker, a restart, an eviction): everything, once; the worker holds it from then on.
      this.held = undefined;
      reply = await activities.callModel({ ...plain, ...summary, conversation: ref });
    }
    this.inFlight = null;
    if (!summarise) {
      this.made.clear();
      const all = [...digests, digestMessage(reply.message)];
      this.held = { digests: all, digest: digestConversation(all), tools: ref.tools };
    }
    return reply;
  }
}
