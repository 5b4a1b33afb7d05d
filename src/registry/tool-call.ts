// One tool call as it crosses the worker: the model's arguments parsed and checked against the tool's schema once,
// when the call arrives; the gate's verdict, the hooks, dispatch and the second look before a call runs all read this
// one envelope, and its result is capped once, as it leaves. Worker-only.
import { toolError } from '../common/errors.js';
import { parseArguments } from './result.js';
import type { ToolRegistry } from './registry.js';
import type { ToolEntry } from './types.js';

export interface ToolCall {
  name: string;
  /** The arguments as the model wrote them (JSON text, or an object from a plugin or a program). */
  raw: unknown;
  /** The registered tool, looked up by an own-property check (the name comes from the model). */
  entry?: ToolEntry;
  /** The arguments as a JSON object, for hooks and the gate; null when they are not one. */
  parsed: Record<string, unknown> | null;
  /** Checked against the tool's schema: the value the handler gets, or the error the model gets. */
  checked: { ok: true; value: Record<string, unknown> } | { ok: false; error: string };
}

/** Parses and checks a call's arguments: the one place this happens on a call's way through the worker. */
export function toolCall(registry: ToolRegistry, name: string, raw: unknown): ToolCall {
  const entry = registry.get(name);
  const parsed = parseArguments(raw);
  const object =
    parsed.ok && typeof parsed.value === 'object' && parsed.value !== null && !Array.isArray(parsed.value)
      ? (parsed.value as Record<string, unknown>)
      : null;
  const fail = (error: string): ToolCall => ({ name, raw, entry, parsed: object, checked: { ok: false, error } });
  if (!entry) return fail(`Unknown tool '${name}'`);
  if (entry.agentLoop || !entry.handler)
    return fail(`Tool '${name}' is handled by the agent loop, not by tool dispatch: use it inside an agent run`);
  if (!parsed.ok) return fail(`Arguments for tool '${name}' are not valid JSON: ${parsed.error}`);
  if (!object) return fail(`Arguments for tool '${name}' must be a JSON object`);
  const valid = entry.validate(object);
  if (!valid.ok) return fail(`Invalid arguments for tool '${name}': ${valid.error}`);
  return { name, raw, entry, parsed: object, checked: { ok: true, value: valid.value } };
}

/** The error result a call whose arguments did not check gets, as dispatch gives it. */
export function checkError(call: ToolCall): string | undefined {
  return call.checked.ok ? undefined : toolError(call.checked.error);
}
