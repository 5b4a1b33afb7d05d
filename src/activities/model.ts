// The model-call activity: picks the provider for the run's model and heartbeats while it answers. Worker-only.
import { ApplicationFailure, Context } from '@temporalio/activity';
import { lostWorker, withHeartbeat } from './heartbeat.js';
import { recordTranscriptEntries } from './store.js';
import { transcriptEntries } from '../common/transcript.js';
import { fitReply } from '../workflows/payload-limits.js';
import { summaryRequest } from '../workflows/compaction.js';
import { ConversationCache, isCacheMiss } from './conversation-cache.js';
import { rebuildEnabled, requestFromWorkflow } from './conversation-rebuild.js';
import type { CallModelInput } from '../common/activity-contract.js';
import type { ChatMessage, ModelReply } from '../common/types.js';
import { createLocalProvider } from '../models/local-provider.js';
import { localModelResolver, localModelSettings, type LocalModelResolver } from '../models/local-model.js';
import { createOpenAIProvider, openAISettingsFromEnv, type OpenAISettings } from '../models/openai-provider.js';
import { LOCAL_PREFIX, type ModelProvider } from '../models/types.js';
import { observeChat } from '../observability/observe.js';

export interface ModelSettings {
  openai: OpenAISettings;
  /** Settings of a `local:<id>` model, undefined while its weights are not installed. */
  local?: LocalModelResolver;
}

export type CompleteFn = (input: CallModelInput, signal: AbortSignal) => Promise<ModelReply>;

/** Sends a request to the provider of its model: the local model for `local:` names, the OpenAI-compatible endpoint otherwise. */
export function createModelRouter(settings: ModelSettings): CompleteFn {
  const openai = createOpenAIProvider(settings.openai);
  // One provider per weights file: each holds its model in memory once loaded.
  const local = new Map<string, ModelProvider>();
  return async (input, signal) => {
    let provider = openai;
    if (input.model.startsWith(LOCAL_PREFIX)) {
      let found;
      try {
        found = settings.local?.(input.model);
      } catch (err) {
        throw ApplicationFailure.nonRetryable((err as Error).message, 'Model.NotFound');
      }
      if (!found) {
        throw ApplicationFailure.nonRetryable(
          `Model '${input.model}' is a local model whose weights are not installed on this worker: run ` +
            `'tether model install ${input.model.slice(LOCAL_PREFIX.length)}' (or 'npm run setup:local-model' for the default)`,
          'Model.NotFound',
        );
      }
      const key = `${found.format}:${found.modelPath}`;
      provider = local.get(key) ?? createLocalProvider(found);
      local.set(key, provider);
    }
    return provider.complete(input, signal);
  };
}

/**
 * The run a model call belongs to, under which its conversation is cached and its transcript kept: the workflow
 * that scheduled it. Inputs scheduled before the id was left out (recorded histories, runs in flight) name it.
 */
export function runOf(input: CallModelInput): string {
  const named = input.conversation?.id ?? input.transcript?.workflowId;
  if (named !== undefined) return named;
  const run = Context.current().info.workflowExecution;
  if (!run)
    throw ApplicationFailure.nonRetryable('callModel was started without a workflow: it has no run', 'Model.BadInput');
  return run.workflowId;
}

export function createModelActivity(
  complete: CompleteFn,
  cache = new ConversationCache(),
  rebuild = rebuildEnabled(),
): (input: CallModelInput) => Promise<ModelReply> {
  return async (input) => {
    const { conversation: ref, summarise, ...rest } = input;
    // A call that names its conversation by reference is put together from this worker's cache; on a miss the
    // workflow is asked (nothing recorded); failing that, the miss goes back to it and it sends everything once.
    const run = ref || input.transcript ? runOf(input) : '';
    let held = { messages: input.messages, tools: input.tools };
    if (ref) {
      try {
        held = cache.resolve({ ...ref, id: run }, input.messages, input.tools);
      } catch (err) {
        const asked = rebuild && isCacheMiss(err) ? await requestFromWorkflow(ref) : undefined;
        if (!asked) throw err;
        held = asked;
      }
    }
    const request: CallModelInput = {
      ...rest,
      messages: summarise ? summaryRequest(held.messages) : held.messages,
      tools: held.tools,
    };
    // A model call can take minutes: heartbeats let a crashed worker's call be retried elsewhere within seconds.
    // A reply too large to record becomes a shortened one the workflow answers with an error, never a failed attempt.
    // Observed (a `chat` span, model metrics) only when tracing or metrics are on; otherwise just the call.
    const observed = summarise ? { ...request, summarise } : request;
    const reply = fitReply(await withHeartbeat((signal) => observeChat(observed, () => complete(request, signal))));
    // Held as the workflow will see it (parsed from JSON), so both sides' digests agree.
    if (ref && !summarise)
      cache.store(run, [...held.messages, JSON.parse(JSON.stringify(reply.message)) as ChatMessage]);
    // The transcript (for session_search) is written here, where the messages already are. Best effort: a store
    // problem never fails the model call; a retry overwrites an earlier attempt's reply with the one returned.
    const t = input.transcript;
    if (t)
      await recordTranscriptEntries(
        run,
        transcriptEntries(held.messages, t.fromIndex, t.firstSeq, t.turn, reply.message),
      );
    const lost = lostWorker();
    return lost ? { ...reply, lostWorker: lost } : reply;
  };
}

/** Model settings from the environment: the OpenAI-compatible endpoint, and the local model when installed. */
export function modelSettingsFromEnv(env = process.env): ModelSettings {
  localModelSettings(env); // a wrong TETHER_LOCAL_MODEL* setting fails here, at start, naming the variable
  return { openai: openAISettingsFromEnv(env), local: localModelResolver(env) };
}
