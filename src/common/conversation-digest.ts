// Digests of chat messages, tool lists and conversations, the same in workflow and worker, so a model call can name
// what the worker already holds instead of sending it again. Pure and workflow-safe (no crypto module needed).
import type { ChatMessage } from './types.js';

/**
 * A 64-bit digest of `text` (two independent 32-bit multiply-xor lanes) plus its length. It guards against
 * accidental mismatch between a worker's cache and the workflow's state, not against an adversary: a collision
 * needs the same length and both lanes equal within one run's own conversation.
 */
export function digestText(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x2f6b3c1d;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 13;
  }
  return `${(a >>> 0).toString(36)}.${(b >>> 0).toString(36)}.${text.length.toString(36)}`;
}

/**
 * A message's digest over its JSON form. JSON is what crosses between workflow and worker, and a parsed message
 * serialises to the same text again, so both sides agree.
 */
export const digestMessage = (m: ChatMessage): string => digestText(JSON.stringify(m));

/** A conversation's digest: over its messages' digests, in order. */
export const digestConversation = (messageDigests: readonly string[]): string => digestText(messageDigests.join(','));

/** What a worker is believed to hold of a run's conversation; carried through continue-as-new. */
export interface HeldConversation {
  /** Messages held (a prefix of the carried conversation when it still matches). */
  count: number;
  digest: string;
  /** Digest of the tool list held. */
  tools: string;
}
