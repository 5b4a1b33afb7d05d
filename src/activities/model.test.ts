// The model activity finds a call's run in its input (inputs scheduled by workflow code before the run id was left
// out: recorded histories, runs in flight) or, since then, in its own context, for the cached conversation and the
// transcript. Activity context: Temporal's MockActivityEnvironment; model: the scripted OpenAI-compatible server on
// loopback; cache and store are the real ones.
import { randomUUID } from 'node:crypto';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallModelInput } from '../common/activity-contract.js';
import { digestConversation, digestMessage, digestText } from '../common/conversation-digest.js';
import type { ChatMessage, ModelReply } from '../common/types.js';
import { readTranscript } from '../store/transcript-reader.js';
import { startScriptedModel, type ScriptedModel } from '../../test/support/scripted-model.js';
import { ConversationCache } from './conversation-cache.js';
import { createModelActivity, createModelRouter } from './model.js';

let model: ScriptedModel;
beforeAll(async () => {
  model = await startScriptedModel([{ content: 'first answer' }, { content: 'second answer' }, { content: 'third' }]);
});
afterAll(() => model.close());

const digestOf = (messages: ChatMessage[]): string => digestConversation(messages.map(digestMessage));

/** Two calls of one run: the whole conversation, then by reference to what the worker held after the first. */
async function twoCalls(env: MockActivityEnvironment, named?: string): Promise<{ second: ModelReply }> {
  const cache = new ConversationCache();
  const callModel = createModelActivity(
    createModelRouter({ openai: { baseURL: model.url, apiKey: 'test' } }),
    cache,
    false,
  );
  const tools = digestText(JSON.stringify([]));
  const start: ChatMessage[] = [
    { role: 'system', content: 'be brief' },
    { role: 'user', content: 'hello' },
  ];
  const id = named ? { id: named } : {};
  const first: ModelReply = await env.run(callModel, {
    model: 'scripted',
    messages: start,
    tools: [],
    transcript: { ...(named ? { workflowId: named } : {}), turn: 1, fromIndex: 0, firstSeq: 0 },
    conversation: { ...id, digest: digestOf(start), tools },
  } satisfies CallModelInput);
  const held = [...start, JSON.parse(JSON.stringify(first.message)) as ChatMessage];
  const next: ChatMessage = { role: 'user', content: 'and again' };
  const second: ModelReply = await env.run(callModel, {
    model: 'scripted',
    messages: [next],
    tools: [],
    transcript: { ...(named ? { workflowId: named } : {}), turn: 2, fromIndex: 3, firstSeq: 3 },
    conversation: { ...id, digest: digestOf([...held, next]), tools, base: digestOf(held), layout: [[0, 3], 0] },
  } satisfies CallModelInput);
  return { second };
}

describe('createModelActivity', () => {
  it('a call that does not name its run is cached and transcribed under the workflow that scheduled it', async () => {
    const workflowId = `lean-${randomUUID()}`;
    const env = new MockActivityEnvironment({ workflowExecution: { workflowId, runId: 'r1' } });
    const { second } = await twoCalls(env);
    expect(second.message.content).toBe('second answer');
    expect(model.requests.at(-1)!.messages.map((m) => m.content)).toEqual([
      'be brief',
      'hello',
      'first answer',
      'and again',
    ]);
    expect(readTranscript(workflowId).map((e) => e.content)).toEqual([
      'be brief',
      'hello',
      'first answer',
      'and again',
      'second answer',
    ]);
  });

  it('a call scheduled by older workflow code names its run, and that name is used', async () => {
    const named = `old-${randomUUID()}`;
    // The context's id differs on purpose: the input's own name must win for inputs that carry one.
    const env = new MockActivityEnvironment({ workflowExecution: { workflowId: `ctx-${randomUUID()}`, runId: 'r1' } });
    const { second } = await twoCalls(env, named);
    expect(second.message.content).toBe('second answer');
    expect(readTranscript(named)).toHaveLength(5);
  });
});
