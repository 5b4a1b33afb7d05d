// The local provider: a GGUF model run by node-llama-cpp on the CPU. The 135M model's replies are constrained by a
// JSON decision grammar (here); Qwen speaks its own tool-call format (qwen-provider.ts). Worker-only.
import { ApplicationFailure } from '@temporalio/activity';
import type { ChatHistoryItem } from 'node-llama-cpp';
import type { CallModelInput } from '../common/activity-contract.js';
import type { ChatMessage, ModelReply } from '../common/types.js';
import { decisionSchema } from './decision-grammar.js';
import { toLocalHistory } from './local-history.js';
import { lazyModel, oneAtATime, type LocalModelSettings } from './local-runtime.js';
import { createQwenProvider } from './qwen-provider.js';
import type { ModelProvider } from './types.js';

export type { LocalModelSettings };

// Enough for the longest reply the grammar allows (see MAX_STRING_CHARS), so a reply is never cut.
const MAX_REPLY_TOKENS = 1_024;

export function createLocalProvider(settings: LocalModelSettings): ModelProvider {
  return settings.format === 'qwen-tools' ? createQwenProvider(settings) : createDecisionProvider(settings);
}

function createDecisionProvider(settings: LocalModelSettings): ModelProvider {
  const load = lazyModel(settings);
  const serial = oneAtATime();

  async function generate(input: CallModelInput, signal: AbortSignal): Promise<ModelReply> {
    const { llama, model, context } = await load();
    const { LlamaChat } = await import('node-llama-cpp');
    const toolRounds = input.messages.filter((m) => m.role === 'assistant' && (m.tool_calls?.length ?? 0) > 0).length;
    const mode =
      input.tools.length === 0 || toolRounds >= settings.maxToolRounds
        ? 'answer'
        : toolRounds === 0
          ? 'tool'
          : 'either';
    const grammar = await llama.createGrammarForJsonSchema(decisionSchema(input.tools, mode) as never);
    const history = toLocalHistory(input.messages, input.tools) as ChatHistoryItem[];
    history.push({ type: 'model', response: [] });
    const sequence = context.getSequence();
    const chat = new LlamaChat({ contextSequence: sequence });
    let completionTokens = 0;
    try {
      const res = await chat.generateResponse(history, {
        grammar,
        maxTokens: MAX_REPLY_TOKENS,
        temperature: 0,
        repeatPenalty: { penalty: 1.3 },
        signal,
        onToken: (tokens) => {
          completionTokens += tokens.length;
        },
      });
      const promptTokens = model.tokenize(
        history.map((h) => ('text' in h ? String(h.text) : h.response.join(''))).join('\n'),
      ).length;
      return {
        message: toMessage(res.response, toolRounds),
        finishReason: res.metadata.stopReason,
        usage: { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens },
      };
    } catch (err) {
      if (signal.aborted) throw err;
      throw ApplicationFailure.retryable(`local model failed: ${(err as Error).message}`, 'Model.Local');
    } finally {
      chat.dispose({ disposeSequence: true });
    }
  }

  return {
    describe: (model) => `${model} (local model, ${settings.modelPath})`,
    complete: (input, signal) => serial(() => generate(input, signal)),
  };
}

/** A complete grammar-constrained reply is a tool call or an answer; a reply cut at the token limit becomes text. */
export function toMessage(text: string, round: number): ChatMessage {
  let parsed: { tool?: string; arguments?: unknown; answer?: string } | undefined;
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    parsed = undefined;
  }
  if (parsed && typeof parsed.tool === 'string') {
    return {
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: `local_${round + 1}_1`,
          type: 'function',
          function: { name: parsed.tool, arguments: JSON.stringify(parsed.arguments ?? {}) },
        },
      ],
    };
  }
  if (parsed && typeof parsed.answer === 'string') return { role: 'assistant', content: parsed.answer };
  return { role: 'assistant', content: text.trim() === '' ? '(the local model gave no answer)' : text };
}
