// Turns an OpenAI-style conversation into the plain chat a small local model reads, tools described in text. Pure.
import type { ToolDefinition } from '../common/tool-definition.js';
import type { ChatMessage } from '../common/types.js';

type LocalTurn =
  { type: 'system'; text: string } | { type: 'user'; text: string } | { type: 'model'; response: string[] };

const RESULT_CHARS = 1_500;

function describeTools(tools: ToolDefinition[]): string {
  if (tools.length === 0) return '';
  const lines = tools.map((t) => {
    const props = Object.keys((t.function.parameters.properties ?? {}) as Record<string, unknown>);
    return `- ${t.function.name}(${props.join(', ')}): ${t.function.description.split('\n')[0]}`;
  });
  return `\n\nTools you can call:\n${lines.join('\n')}\n\nReply with JSON only: {"tool": NAME, "arguments": {...}} to call a tool, or {"answer": TEXT} when you are done.`;
}

/** Consecutive turns of the same kind are merged: chat templates expect alternating user and model turns. */
export function toLocalHistory(messages: ChatMessage[], tools: ToolDefinition[]): LocalTurn[] {
  const out: LocalTurn[] = [];
  const push = (turn: LocalTurn): void => {
    const last = out.at(-1);
    if (last && last.type === turn.type) {
      if (last.type === 'model' && turn.type === 'model') last.response.push(...turn.response);
      else if (last.type !== 'model' && turn.type !== 'model') last.text += `\n\n${turn.text}`;
      return;
    }
    out.push(turn);
  };
  const names = new Map<string, string>();
  for (const m of messages) {
    if (m.role === 'system') push({ type: 'system', text: m.content ?? '' });
    else if (m.role === 'user') push({ type: 'user', text: m.content ?? '' });
    else if (m.role === 'assistant') {
      const parts: string[] = [];
      if (m.content) parts.push(JSON.stringify({ answer: m.content }));
      for (const c of m.tool_calls ?? []) {
        names.set(c.id, c.function.name);
        let args: unknown = c.function.arguments;
        try {
          args = JSON.parse(c.function.arguments);
        } catch {
          // keep the raw text
        }
        parts.push(JSON.stringify({ tool: c.function.name, arguments: args }));
      }
      push({ type: 'model', response: [parts.join('\n')] });
    } else if (m.role === 'tool') {
      const content = m.content ?? '';
      const clipped = content.length > RESULT_CHARS ? `${content.slice(0, RESULT_CHARS)}... (cut)` : content;
      push({ type: 'user', text: `Result of ${names.get(m.tool_call_id ?? '') ?? 'the tool'}: ${clipped}` });
    }
  }
  const system = out[0]?.type === 'system' ? out[0] : undefined;
  if (system) system.text += describeTools(tools);
  else out.unshift({ type: 'system', text: describeTools(tools).trim() });
  return out;
}
