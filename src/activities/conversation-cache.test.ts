// ConversationCache's bounds: conversations by count and by characters, least recently used first, one version per
// run, and the messages made here by their own bound; what is dropped is a cache miss.
import { describe, expect, it } from 'vitest';
import { digestConversation, digestMessage, digestText } from '../common/conversation-digest.js';
import type { ChatMessage } from '../common/types.js';
import { ConversationCache, isCacheMiss } from './conversation-cache.js';

const user = (content: string): ChatMessage => ({ role: 'user', content });
const noTools = digestText(JSON.stringify([]));
const digestOf = (messages: ChatMessage[]): string => digestConversation(messages.map(digestMessage));

/** Asks for `held` (as stored under `id`) followed by `made` (digests of messages made here); true unless a miss. */
function resolves(cache: ConversationCache, id: string, held: ChatMessage[], made: ChatMessage[] = []): boolean {
  const layout: ([number, number] | string)[] = [[0, held.length], ...made.map(digestMessage)];
  const ref = { id, base: digestOf(held), layout, digest: digestOf([...held, ...made]), tools: noTools };
  try {
    cache.resolve(ref, [], []);
    return true;
  } catch (err) {
    if (isCacheMiss(err)) return false;
    throw err;
  }
}

describe('ConversationCache bounds', () => {
  it('drops the least recently used conversation past maxEntries; a model call naming one is a use', () => {
    const cache = new ConversationCache({ maxChars: 1_000, maxEntries: 2 });
    const [a, b, c] = [[user('task a')], [user('task b')], [user('task c')]];
    cache.store('a', a);
    cache.store('b', b);
    expect(resolves(cache, 'a', a)).toBe(true);
    cache.store('c', c);
    expect(cache.firstUserMessage('b')).toBeUndefined();
    expect(resolves(cache, 'b', b)).toBe(false);
    expect(resolves(cache, 'a', a)).toBe(true);
    expect(resolves(cache, 'c', c)).toBe(true);
  });

  it('drops the oldest conversations past maxChars, and an older version of a run once a newer one is stored', () => {
    const cache = new ConversationCache({ maxChars: 25, maxEntries: 10 });
    const ten = (s: string): ChatMessage[] => [user(s.repeat(10))];
    cache.store('a', ten('a'));
    cache.store('b', ten('b'));
    cache.store('c', ten('c'));
    expect(cache.firstUserMessage('a')).toBeUndefined();
    expect(cache.firstUserMessage('b')).toBe('bbbbbbbbbb');
    const b2 = [...ten('b'), { role: 'assistant', content: 'ok' } as ChatMessage];
    cache.store('b', b2);
    expect(resolves(cache, 'b', ten('b'))).toBe(false);
    expect(resolves(cache, 'b', b2)).toBe(true);
  });

  it('holds messages made here within a quarter of maxChars, the oldest dropped first', () => {
    const cache = new ConversationCache({ maxChars: 40, maxEntries: 10 });
    const base = [user('t')];
    cache.store('run', base);
    const [m1, m2] = [user('111111'), user('222222')];
    cache.holdMessage(m1);
    expect(resolves(cache, 'run', base, [m1])).toBe(true);
    cache.holdMessage(m2);
    expect(resolves(cache, 'run', base, [m1])).toBe(false);
    expect(resolves(cache, 'run', base, [m2])).toBe(true);
  });
});
