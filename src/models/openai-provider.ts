// The OpenAI-compatible provider: any chat completions endpoint through the `openai` client. Worker-only.
import { ApplicationFailure } from '@temporalio/activity';
import OpenAI, { APIConnectionError, APIError } from 'openai';
import { TetherError } from '../common/errors.js';
import type { ChatMessage, ModelReply } from '../common/types.js';
import type { CallModelInput } from '../common/activity-contract.js';
import type { ModelProvider } from './types.js';
import { shownEndpoint } from '../temporal/worker-identity.js';
import { PROBE_DEFAULTS, probeEndpoint, type ProbeOptions } from './endpoint-probe.js';

const OPENAI_URL = 'https://api.openai.com/v1';

export interface OpenAISettings {
  baseURL?: string;
  apiKey?: string;
}

/** OPENAI_BASE_URL and OPENAI_API_KEY; a wrong URL is a configuration error named at start-up. */
export function openAISettingsFromEnv(env = process.env): OpenAISettings {
  const baseURL = env.OPENAI_BASE_URL?.trim() || undefined;
  if (baseURL !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(baseURL);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      throw new TetherError(
        'Config.Invalid',
        `OPENAI_BASE_URL=${baseURL} is not an http(s) URL (for example http://127.0.0.1:8080/v1)`,
        false,
      );
    }
  }
  return { baseURL, apiKey: env.OPENAI_API_KEY || undefined };
}

/** Where model calls go, as people are shown it: the address without credentials, and the setting that chose it. */
export function endpointLabel(settings: OpenAISettings): string {
  return settings.baseURL
    ? `${shownEndpoint(settings.baseURL)} (OPENAI_BASE_URL)`
    : `${OPENAI_URL} (OpenAI: OPENAI_BASE_URL is unset)`;
}

export function isOpenAIConfigured(settings: OpenAISettings): boolean {
  return settings.baseURL !== undefined || settings.apiKey !== undefined;
}

/** What a server error says when the request itself was invalid, not the server unwell. */
const INVALID_REQUEST =
  /\bvalidation errors? for\b|\bvalidation error\b|\binvalid_request_error\b|\bis not valid under\b|\bextra inputs are not permitted\b/i;

/**
 * The messages as sent. An assistant message that carries tool calls goes with `content: ""` instead of null:
 * OpenAI takes both, but servers that check the schema strictly (llama-cpp-python) refuse null, and some refuse a
 * missing key; an empty string is what every server tried accepts. History keeps the model's own null.
 */
function wireMessages(messages: readonly ChatMessage[]): OpenAI.Chat.Completions.ChatCompletionMessageParam[] {
  return messages.map((m) =>
    m.role === 'assistant' && m.content === null ? { ...m, content: '' } : m,
  ) as OpenAI.Chat.Completions.ChatCompletionMessageParam[];
}

/** Maps an HTTP failure to: retry (429, 5xx, network) or fail the run now with the setting to fix. */
function classifyModelError(err: unknown, model: string, settings: OpenAISettings): Error {
  const where = endpointLabel(settings);
  if (err instanceof APIConnectionError) return err; // network: retryable, Temporal backs off
  if (err instanceof APIError) {
    const status = err.status;
    const detail = err.message;
    if (status === 401 || status === 403) {
      return ApplicationFailure.nonRetryable(
        `The model endpoint ${where} refused the credentials (HTTP ${status}): check OPENAI_API_KEY. ${detail}`,
        'Model.Auth',
      );
    }
    if (status === 404) {
      return ApplicationFailure.nonRetryable(
        `The model endpoint ${where} has no model '${model}' or no chat completions API (HTTP 404): check --model / TETHER_MODEL and OPENAI_BASE_URL. ${detail}`,
        'Model.NotFound',
      );
    }
    if (status === 400 || status === 422) {
      return ApplicationFailure.nonRetryable(
        `The model endpoint ${where} rejected the request (HTTP ${status}): ${detail}`,
        'Model.BadRequest',
      );
    }
    // Some servers answer a request they cannot validate with a 5xx (llama-cpp-python: HTTP 500, "1 validation error
    // for ..."): retrying the same request cannot help, so it fails now like a 400, with the server's words.
    if (status !== undefined && status >= 500 && INVALID_REQUEST.test(detail)) {
      return ApplicationFailure.nonRetryable(
        `The model endpoint ${where} rejected the request (HTTP ${status}, a validation error): ${detail}`,
        'Model.BadRequest',
      );
    }
    if (status === 429 || (status !== undefined && status >= 500)) {
      return ApplicationFailure.retryable(
        `Model endpoint ${where} answered HTTP ${status}: ${detail}`,
        'Model.Unavailable',
      );
    }
  }
  return err instanceof Error ? err : new Error(String(err));
}

/** The run's model answered before (its conversation holds a reply): an unreachable endpoint is then retried. */
const answeredInRun = (input: CallModelInput): boolean => input.messages.some((m) => m.role === 'assistant');

/** The run fails now, naming the address and the setting: retrying an endpoint that never answered only adds minutes. */
function unreachable(settings: OpenAISettings, why: string): Error {
  const where = endpointLabel(settings);
  const fix = settings.baseURL
    ? 'start the model server, or set OPENAI_BASE_URL to the address of one that runs'
    : 'check the network, or set OPENAI_BASE_URL to an OpenAI-compatible server';
  return ApplicationFailure.nonRetryable(
    `The model endpoint ${where} does not answer: ${why}. ${fix[0]!.toUpperCase()}${fix.slice(1)} (a model that answered before is retried).`,
    'Model.Unreachable',
  );
}

export function createOpenAIProvider(settings: OpenAISettings, probe: ProbeOptions = PROBE_DEFAULTS): ModelProvider {
  // Retries belong to Temporal (durable, visible in history), not to the client.
  const client = new OpenAI({
    baseURL: settings.baseURL,
    apiKey: settings.apiKey ?? 'not-set',
    maxRetries: 0,
    timeout: 9 * 60_000,
  });
  /** This process had an answer from the endpoint: it is there, and a failure now is worth Temporal's retries. */
  let answered = false;
  const request = async (input: CallModelInput, signal: AbortSignal): Promise<ModelReply> => {
    let completion: OpenAI.Chat.Completions.ChatCompletion;
    try {
      completion = await client.chat.completions.create(
        {
          model: input.model,
          messages: wireMessages(input.messages),
          ...(input.tools.length > 0 ? { tools: input.tools, tool_choice: 'auto' as const } : {}),
        },
        { signal },
      );
    } catch (err) {
      // An HTTP answer, even an error, says the endpoint is there.
      if (err instanceof APIError && !(err instanceof APIConnectionError)) answered = true;
      throw classifyModelError(err, input.model, settings);
    }
    answered = true;
    return replyOf(completion);
  };
  return {
    describe: (model) => `${model} at ${settings.baseURL ?? OPENAI_URL}`,
    async complete(input: CallModelInput, signal: AbortSignal): Promise<ModelReply> {
      if (answered || answeredInRun(input)) return request(input, signal);
      // A first call: the endpoint is probed beside it, and one that refuses or never answers fails the run within
      // the probe's deadline (src/models/endpoint-probe.ts) instead of after minutes of retries.
      const call = new AbortController();
      const probing = new AbortController();
      const cancel = (): void => call.abort();
      signal.addEventListener('abort', cancel, { once: true });
      const check = probeEndpoint(settings.baseURL ?? OPENAI_URL, { ...probe, signal: probing.signal });
      const reply = request(input, call.signal);
      try {
        const first = await Promise.race([reply.then((r) => ({ r })), check.then((p) => ({ p }))]);
        if ('r' in first) return first.r;
        if (!first.p.ok && !answered) {
          call.abort();
          reply.catch(() => undefined);
          throw unreachable(settings, first.p.why);
        }
        return await reply;
      } catch (err) {
        // The call failed to connect before the probe decided: the probe's verdict says whether to retry.
        if (err instanceof APIConnectionError && !signal.aborted) {
          const p = await check;
          if (!p.ok && !answered) throw unreachable(settings, p.why);
        }
        throw err;
      } finally {
        probing.abort();
        signal.removeEventListener('abort', cancel);
      }
    },
  };
}

/** The assistant message of a completion, normalised (servers differ). */
function replyOf(completion: OpenAI.Chat.Completions.ChatCompletion): ModelReply {
  const choice = completion.choices[0];
  if (!choice) throw ApplicationFailure.retryable('The model returned no choices', 'Model.EmptyReply');
  // Servers differ: a call without `type`, without arguments or without an id is normalised, not dropped.
  const calls = (choice.message.tool_calls ?? []).filter(
    (c) => (c as { type?: string }).type === undefined || c.type === 'function',
  ) as {
    id?: string;
    function?: { name?: string; arguments?: string };
  }[];
  const message: ChatMessage = {
    role: 'assistant',
    content: choice.message.content ?? null,
    ...(calls.length > 0
      ? {
          tool_calls: calls.map((c, i) => ({
            id: c.id || `call_${completion.id ?? 'x'}_${i + 1}`,
            type: 'function' as const,
            function: {
              name: String(c.function?.name ?? ''),
              arguments: typeof c.function?.arguments === 'string' ? c.function.arguments : '{}',
            },
          })),
        }
      : {}),
  };
  const u = completion.usage;
  return {
    message,
    finishReason: choice.finish_reason ?? null,
    usage: {
      promptTokens: u?.prompt_tokens ?? 0,
      completionTokens: u?.completion_tokens ?? 0,
      totalTokens: u?.total_tokens ?? 0,
    },
  };
}
