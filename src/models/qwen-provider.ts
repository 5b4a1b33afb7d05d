// The Qwen2.5 provider: the conversation in the model's own chat template (qwen-format.ts); the first turn is a
// tool call (under the tools' grammar if the free one does not parse), later turns free to call or answer. Worker-only.
import { ApplicationFailure } from '@temporalio/activity';
import type { LlamaCompletion, Token } from 'node-llama-cpp';
import type { CallModelInput } from '../common/activity-contract.js';
import type { ToolDefinition } from '../common/tool-definition.js';
import type { ModelReply, ModelToolCall } from '../common/types.js';
import { compactTools } from './compact-tools.js';
import { MAX_STRING_CHARS, toGrammarSchema } from './decision-grammar.js';
import { lazyModel, oneAtATime, type LoadedModel, type LocalModelSettings } from './local-runtime.js';
import { parseQwenReply, pyJson, renderQwenPrompt, TOOL_CALL_OPEN, type PromptPart } from './qwen-format.js';
import type { ModelProvider } from './types.js';

/** Long enough for a small file written whole (write_file) or a patch; longer replies are cut. */
const MAX_REPLY_TOKENS = 1_024;
/**
 * Strings in a call written under the grammar: bounded, because greedy decoding inside a string can repeat itself
 * (a search pattern of `a|b|b|b|...`) until the token limit, minutes on a CPU.
 */
const CALL_STRING_CHARS = MAX_STRING_CHARS;
/** How a free first call starts: the model only has to name the tool (left at `<tool_call>`, it often stopped). */
const CALL_START = `${TOOL_CALL_OPEN}{"name": "`;
/** A tool result is cut to this before it enters the prompt (then halved while the prompt does not fit). */
const RESULT_CHARS = 6_000;

/** `{"name": <one of the tools>, "arguments": {...}}`: the JSON inside a forced <tool_call> block. */
function callSchema(tools: ToolDefinition[]): object {
  const options = tools.map((t) => ({
    type: 'object',
    properties: {
      name: { const: t.function.name },
      arguments: toGrammarSchema(t.function.parameters, CALL_STRING_CHARS),
    },
    required: ['name', 'arguments'],
    additionalProperties: false,
  }));
  return options.length === 1 ? options[0]! : { oneOf: options };
}

/** A call's identity: its tool and its arguments, whatever their key order or spacing. */
function callKey(c: ModelToolCall): string {
  let args: unknown = c.function.arguments;
  try {
    args = JSON.parse(c.function.arguments);
  } catch {
    // compared as text
  }
  return `${c.function.name} ${pyJson(sortKeys(args))}`;
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (typeof v !== 'object' || v === null) return v;
  return Object.fromEntries(
    Object.keys(v)
      .sort()
      .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
  );
}

function tokenize(loaded: LoadedModel, parts: PromptPart[]): Token[] {
  // Control tokens only where the template puts them: text from files or the user is never read as one.
  return parts.flatMap((p) =>
    'special' in p ? loaded.model.tokenize(p.special, true) : loaded.model.tokenize(p.text, false),
  );
}

type Mode = 'call' | 'strict-call' | 'either' | 'answer';

/** The second reply, counting the tokens the first one generated too. */
function both(first: ModelReply, second: ModelReply): ModelReply {
  const extra = first.usage.completionTokens;
  return {
    ...second,
    usage: {
      ...second.usage,
      completionTokens: second.usage.completionTokens + extra,
      totalTokens: second.usage.totalTokens + extra,
    },
  };
}

export function createQwenProvider(settings: LocalModelSettings): ModelProvider {
  const load = lazyModel(settings);
  const serial = oneAtATime();
  // One completion on one sequence for the provider's life: the next prompt reuses the evaluated prefix (the
  // system turn and tools, the conversation so far) instead of reading it again.
  let completion: LlamaCompletion | undefined;

  /**
   * One reply. `call`: the reply starts as a tool call (the prompt ends with `<tool_call>{"name": "`), written
   * freely, so optional arguments can be given; `strict-call`: a call under a grammar of the offered tools and their
   * required arguments; `either`: tools offered, a call or the answer; `answer`: no tools offered.
   */
  async function reply(input: CallModelInput, mode: Mode, round: number, signal: AbortSignal): Promise<ModelReply> {
    const loaded = await load();
    const { LlamaCompletion } = await import('node-llama-cpp');
    completion ??= new LlamaCompletion({ contextSequence: loaded.context.getSequence() });
    const shown = compactTools(input.tools);
    const calling = mode === 'call' || mode === 'strict-call';
    let tokens: Token[] = [];
    for (let chars = RESULT_CHARS; ; chars = Math.floor(chars / 2)) {
      const parts = renderQwenPrompt(input.messages, shown, {
        offerTools: mode !== 'answer',
        resultChars: chars,
      });
      tokens = tokenize(loaded, parts);
      if (calling) tokens.push(...loaded.model.tokenize(mode === 'call' ? CALL_START : TOOL_CALL_OPEN, true));
      if (tokens.length + MAX_REPLY_TOKENS <= settings.contextSize) break;
      if (chars < 200)
        throw ApplicationFailure.nonRetryable(
          `the conversation (${tokens.length} tokens) does not fit the local model's context of ${settings.contextSize} tokens (TETHER_LOCAL_MODEL_CONTEXT)`,
          'Model.ContextFull',
        );
    }
    const grammar =
      mode === 'strict-call'
        ? await loaded.llama.createGrammarForJsonSchema(callSchema(input.tools) as never)
        : undefined;
    let completionTokens = 0;
    try {
      const res = await completion.generateCompletionWithMeta(tokens, {
        grammar,
        maxTokens: MAX_REPLY_TOKENS,
        temperature: 0,
        // A light penalty keeps greedy decoding out of loops (under the grammar too: where it allows one token only,
        // that token is still taken).
        repeatPenalty: { penalty: 1.1, lastTokens: 64 },
        signal,
        onToken: (t) => {
          completionTokens += t.length;
        },
      });
      const text =
        mode === 'call'
          ? `${CALL_START}${res.response}`
          : mode === 'strict-call'
            ? `${TOOL_CALL_OPEN}${res.response}\n</tool_call>`
            : res.response;
      const parsed = parseQwenReply(
        text,
        round,
        input.tools.map((t) => t.function.name),
      );
      // Told to answer, a call it writes anyway is no call: what it wrote before the call is the answer.
      const message =
        mode === 'answer' && parsed.tool_calls
          ? { role: 'assistant' as const, content: parsed.content ?? '(the local model gave no answer)' }
          : parsed;
      return {
        message,
        finishReason: res.metadata.stopReason,
        usage: { promptTokens: tokens.length, completionTokens, totalTokens: tokens.length + completionTokens },
      };
    } catch (err) {
      if (signal.aborted) throw err;
      throw ApplicationFailure.retryable(`local model failed: ${(err as Error).message}`, 'Model.Local');
    }
  }

  async function generate(input: CallModelInput, signal: AbortSignal): Promise<ModelReply> {
    const made = input.messages.flatMap((m) => (m.role === 'assistant' ? (m.tool_calls ?? []) : []));
    const round = input.messages.filter((m) => m.role === 'assistant' && (m.tool_calls?.length ?? 0) > 0).length;
    // The first turn of a task with tools is a tool call: a small model otherwise often answers from nothing.
    const mode =
      input.tools.length === 0 || round >= settings.maxToolRounds ? 'answer' : round === 0 ? 'call' : 'either';
    const first = await reply(input, mode, round, signal);
    const calls = first.message.tool_calls ?? [];
    // Started as a call but not one that parses: written again under the tools' grammar, which cannot go wrong.
    if (mode === 'call' && calls.length === 0) return both(first, await reply(input, 'strict-call', round, signal));
    // A small model likes to make the call it just made again; the result would be the same, so it answers instead.
    const seen = new Set(made.map(callKey));
    if (calls.length === 0 || !calls.every((c) => seen.has(callKey(c)))) return first;
    return both(first, await reply(input, 'answer', round, signal));
  }

  return {
    describe: (model) => `${model} (local model, ${settings.modelPath})`,
    complete: (input, signal) => serial(() => generate(input, signal)),
  };
}
