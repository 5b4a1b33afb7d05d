// Tool definitions as a small local model is shown them: each description cut to its first sentence, validation
// bounds dropped. On a CPU the prompt is read at tens of tokens a second, so every token of it is waiting. Pure.
import type { JsonSchema, ToolDefinition } from '../common/tool-definition.js';

/** Keywords that bound values (the tool's own validation still applies them); noise in a prompt. */
const BOUNDS = new Set(['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minLength', 'maxLength']);

/** Up to the end of the first sentence or line. */
export function firstSentence(text: string): string {
  const line = text.split('\n')[0]!.trim();
  const end = /[.!?](\s|$)/.exec(line);
  return end ? line.slice(0, end.index + 1) : line;
}

function compactSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(compactSchema);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(schema as Record<string, unknown>)) {
    if (BOUNDS.has(k)) continue;
    if (k === 'description' && typeof v === 'string') out[k] = firstSentence(v);
    else if (k === 'properties' && typeof v === 'object' && v !== null)
      out[k] = Object.fromEntries(Object.entries(v).map(([name, p]) => [name, compactSchema(p)]));
    else out[k] = k === 'enum' || k === 'required' ? v : compactSchema(v);
  }
  return out;
}

export function compactTools(tools: ToolDefinition[]): ToolDefinition[] {
  return tools.map((t) => ({
    type: 'function',
    function: {
      name: t.function.name,
      description: firstSentence(t.function.description),
      parameters: compactSchema(t.function.parameters) as ToolDefinition['function']['parameters'],
    },
  }));
}
