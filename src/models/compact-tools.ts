// Tool definitions as a small local model is shown them: required parameters and the optional ones that choose a
// mode (an enum), descriptions cut to their first line, validation bounds dropped. On a CPU the prompt is read at
// tens of tokens a second, and a small model does better with fewer knobs; the tool still accepts the rest. Pure.
import type { JsonSchema, ToolDefinition } from '../common/tool-definition.js';

/** Keywords that bound values (the tool's own validation still applies them); noise in a prompt. */
const BOUNDS = new Set(['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minLength', 'maxLength']);

/** Descriptions longer than this are cut at the last sentence that fits. */
export const DESCRIPTION_CHARS = 300;

/** The first line, cut at a sentence end when it is longer than `max`. */
export function shortDescription(text: string, max = DESCRIPTION_CHARS): string {
  const line = text.split('\n')[0]!.trim();
  if (line.length <= max) return line;
  const ends = [...line.slice(0, max).matchAll(/[.!?](?=\s)/g)];
  const end = ends.at(-1);
  return end ? line.slice(0, end.index + 1) : `${line.slice(0, max).replace(/\s+\S*$/, '')}…`;
}

function compactSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(compactSchema);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(schema as Record<string, unknown>)) {
    if (BOUNDS.has(k)) continue;
    if (k === 'description' && typeof v === 'string') out[k] = shortDescription(v);
    else if (k === 'properties' && typeof v === 'object' && v !== null)
      out[k] = Object.fromEntries(Object.entries(v).map(([name, p]) => [name, compactSchema(p)]));
    else out[k] = k === 'enum' || k === 'required' ? v : compactSchema(v);
  }
  return out;
}

/** The top-level parameters worth showing: the required ones, and optional ones with an enum (a mode switch). */
function shownParameters(schema: JsonSchema): JsonSchema {
  const props = schema.properties as Record<string, JsonSchema> | undefined;
  if (!props) return schema;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const kept = Object.entries(props).filter(([name, p]) => required.has(name) || Array.isArray(p.enum));
  return { ...schema, properties: Object.fromEntries(kept) };
}

export function compactTools(tools: ToolDefinition[]): ToolDefinition[] {
  return tools.map((t) => ({
    type: 'function',
    function: {
      name: t.function.name,
      description: shortDescription(t.function.description),
      parameters: compactSchema(shownParameters(t.function.parameters)) as ToolDefinition['function']['parameters'],
    },
  }));
}
