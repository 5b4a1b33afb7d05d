// The JSON schema a local model's reply must follow (a tool call or an answer), in the subset llama.cpp grammars accept. Pure.
import type { JsonSchema, ToolDefinition } from '../common/tool-definition.js';

const SCALARS = new Set(['string', 'number', 'integer', 'boolean', 'null']);

/** Strings a small model may write; without a bound it can run on until the token limit cuts the JSON. */
export const MAX_STRING_CHARS = 240;

/**
 * Keeps the keywords a GBNF JSON-schema grammar understands. Objects are closed and keep only their required
 * properties (a tiny model fills optional ones with noise, and node-llama-cpp's grammar makes every listed property
 * required); strings are bounded to `maxChars`.
 */
export function toGrammarSchema(schema: unknown, maxChars = MAX_STRING_CHARS): JsonSchema {
  if (typeof schema !== 'object' || schema === null) return { type: ['string', 'number', 'boolean', 'null'] };
  const s = schema as Record<string, unknown>;
  if (Array.isArray(s.enum)) return { enum: s.enum };
  if (s.const !== undefined) return { const: s.const };
  const alternatives = (s.oneOf ?? s.anyOf) as unknown[] | undefined;
  if (Array.isArray(alternatives)) return { oneOf: alternatives.map((a) => toGrammarSchema(a, maxChars)) };
  const type = s.type;
  if (type === 'object') {
    const props = (s.properties ?? {}) as Record<string, unknown>;
    const required = Array.isArray(s.required) ? (s.required as string[]).filter((k) => k in props) : [];
    const properties: Record<string, JsonSchema> = {};
    for (const k of required) properties[k] = toGrammarSchema(props[k], maxChars);
    return { type: 'object', properties, required, additionalProperties: false };
  }
  if (type === 'array') {
    const out: JsonSchema = { type: 'array', items: toGrammarSchema(s.items, maxChars) };
    if (typeof s.minItems === 'number') out.minItems = s.minItems;
    if (typeof s.maxItems === 'number') out.maxItems = s.maxItems;
    return out;
  }
  if (type === 'string') {
    const out: JsonSchema = {
      type: 'string',
      maxLength: Math.min(typeof s.maxLength === 'number' ? s.maxLength : maxChars, maxChars),
    };
    if (typeof s.minLength === 'number') out.minLength = s.minLength;
    return out;
  }
  if (typeof type === 'string' && SCALARS.has(type)) return { type };
  if (Array.isArray(type) && type.every((t) => typeof t === 'string' && SCALARS.has(t))) return { type };
  return { type: ['string', 'number', 'boolean', 'null'] };
}

/**
 * `{"tool": NAME, "arguments": {...}}` for each allowed tool, and/or `{"answer": "..."}`. `mode` says which
 * are allowed this turn: a tiny model is made to use a tool first and to answer after a few tool rounds.
 */
export function decisionSchema(tools: ToolDefinition[], mode: 'tool' | 'either' | 'answer'): JsonSchema {
  const options: JsonSchema[] = [];
  if (mode !== 'answer') {
    for (const t of tools) {
      options.push({
        type: 'object',
        properties: { tool: { const: t.function.name }, arguments: toGrammarSchema(t.function.parameters) },
        required: ['tool', 'arguments'],
        additionalProperties: false,
      });
    }
  }
  if (mode !== 'tool' || options.length === 0) {
    options.push({
      type: 'object',
      properties: { answer: { type: 'string', minLength: 1, maxLength: 2 * MAX_STRING_CHARS } },
      required: ['answer'],
      additionalProperties: false,
    });
  }
  return options.length === 1 ? options[0]! : { oneOf: options };
}
