// Qwen2.5's own chat and tool-call format (the chat template in the model's GGUF): an OpenAI-style conversation
// rendered as ChatML with tools in the system turn and <tool_call>/<tool_response> blocks, and a reply parsed back
// into tool calls or an answer. Pure.
import type { ToolDefinition } from '../common/tool-definition.js';
import type { ChatMessage, ModelToolCall } from '../common/types.js';

/** A piece of the prompt: a control token (tokenized as one special token) or text (never parsed for them). */
export type PromptPart = { special: string } | { text: string };

export const IM_START = '<|im_start|>';
export const IM_END = '<|im_end|>';
export const TOOL_CALL_OPEN = '<tool_call>\n';

const DEFAULT_SYSTEM = 'You are Qwen, created by Alibaba Cloud. You are a helpful assistant.';

/**
 * JSON as Python's json.dumps writes it with its default separators (", " and ": "), which is how the template's
 * `tojson` renders tools and arguments: the model saw that spacing in training.
 */
export function pyJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return `[${value.map(pyJson).join(', ')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}: ${pyJson(v)}`).join(', ')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function toolsSection(tools: ToolDefinition[]): string {
  return (
    '\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n' +
    'You are provided with function signatures within <tools></tools> XML tags:\n<tools>' +
    tools.map((t) => `\n${pyJson(t)}`).join('') +
    '\n</tools>\n\nFor each function call, return a json object with function name and arguments within ' +
    '<tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>'
  );
}

function parsedArguments(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

export interface RenderOptions {
  /** Describe the tools in the system turn (false once the model must answer). */
  offerTools: boolean;
  /** A tool result longer than this is cut, with a note (the context window is small). */
  resultChars: number;
}

/** The prompt for the next assistant turn, in the order and with the text the model's chat template produces. */
export function renderQwenPrompt(messages: ChatMessage[], tools: ToolDefinition[], opts: RenderOptions): PromptPart[] {
  const parts: PromptPart[] = [];
  const turn = (role: string, text: string): void => {
    parts.push({ special: IM_START }, { text: `${role}\n${text}` }, { special: IM_END }, { text: '\n' });
  };
  const first = messages[0];
  const system = first?.role === 'system' ? (first.content ?? '') : undefined;
  const offered = opts.offerTools && tools.length > 0;
  // The template always opens with a system turn (its default text when the conversation has none).
  turn('system', `${system ?? DEFAULT_SYSTEM}${offered ? toolsSection(tools) : ''}`);
  const rest = system !== undefined ? messages.slice(1) : messages;
  for (let i = 0; i < rest.length; i += 1) {
    const m = rest[i]!;
    if (m.role === 'tool') {
      // Consecutive tool results share one user turn, each in its own <tool_response> block.
      let text = '';
      for (; i < rest.length && rest[i]!.role === 'tool'; i += 1) {
        const content = rest[i]!.content ?? '';
        const clipped =
          content.length > opts.resultChars
            ? `${content.slice(0, opts.resultChars)}... (cut: the result was longer)`
            : content;
        text += `\n<tool_response>\n${clipped}\n</tool_response>`;
      }
      i -= 1;
      parts.push({ special: IM_START }, { text: `user${text}` }, { special: IM_END }, { text: '\n' });
    } else if (m.role === 'assistant' && (m.tool_calls?.length ?? 0) > 0) {
      const calls = (m.tool_calls ?? [])
        .map(
          (c) =>
            `\n<tool_call>\n{"name": "${c.function.name}", "arguments": ${pyJson(parsedArguments(c.function.arguments))}}\n</tool_call>`,
        )
        .join('');
      parts.push({ special: IM_START }, { text: `assistant${m.content ? `\n${m.content}` : ''}${calls}` });
      parts.push({ special: IM_END }, { text: '\n' });
    } else {
      turn(m.role, m.content ?? '');
    }
  }
  parts.push({ special: IM_START }, { text: 'assistant\n' });
  return parts;
}

/** The prompt as one string (for tests, and to count its size). */
export const promptText = (parts: PromptPart[]): string =>
  parts.map((p) => ('special' in p ? p.special : p.text)).join('');

function toCall(json: string, id: string): ModelToolCall | undefined {
  let parsed: { name?: unknown; arguments?: unknown } | undefined;
  try {
    parsed = JSON.parse(json) as typeof parsed;
  } catch {
    // A call the model got wrong is still a call: its name, and the text, which the tool's validation refuses
    // with a message the model can act on.
    const name = /"name"\s*:\s*"([^"]+)"/.exec(json)?.[1];
    const args = /"arguments"\s*:\s*([\s\S]*?)\}?\s*$/.exec(json)?.[1];
    return name ? { id, type: 'function', function: { name, arguments: args ?? '{}' } } : undefined;
  }
  if (typeof parsed?.name !== 'string') return undefined;
  const args = typeof parsed.arguments === 'string' ? parsed.arguments : JSON.stringify(parsed.arguments ?? {});
  return { id, type: 'function', function: { name: parsed.name, arguments: args } };
}

const CALL_BLOCK = /<tool_call>\s*([\s\S]*?)\s*(?:<\/tool_call>|$)/g;
const FENCED = /^```(?:json)?\s*([\s\S]*?)\s*```$/;

/**
 * A reply as the model wrote it: `<tool_call>` blocks become tool calls (text before them is kept as content), and a
 * reply that is nothing but a fenced or bare `{"name": ..., "arguments": ...}` naming an offered tool counts as one
 * call too (the small model sometimes writes its calls that way). Anything else is the answer.
 */
export function parseQwenReply(text: string, round: number, toolNames: readonly string[]): ChatMessage {
  const known = new Set(toolNames);
  const id = (i: number): string => `local_${round + 1}_${i + 1}`;
  const trimmed = text.replace(new RegExp(`${IM_END.replace(/[|]/g, '\\|')}\\s*$`), '').trim();
  const start = trimmed.indexOf('<tool_call>');
  if (start >= 0) {
    const calls: ModelToolCall[] = [];
    for (const m of trimmed.slice(start).matchAll(CALL_BLOCK)) {
      const call = toCall(m[1]!, id(calls.length));
      if (call) calls.push(call);
    }
    const before = trimmed.slice(0, start).trim();
    if (calls.length > 0) return { role: 'assistant', content: before === '' ? null : before, tool_calls: calls };
  } else {
    const body = FENCED.exec(trimmed)?.[1] ?? trimmed;
    if (body.startsWith('{') && body.endsWith('}')) {
      const call = toCall(body, id(0));
      if (call && known.has(call.function.name)) return { role: 'assistant', content: null, tool_calls: [call] };
    }
  }
  return { role: 'assistant', content: trimmed === '' ? '(the local model gave no answer)' : trimmed };
}
