// Normalises what a handler returned into the JSON string the model sees: capped, always parseable. Worker-only.
import { toolError } from '../common/errors.js';
import { cutMiddle } from './truncate.js';

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * What a handler returned as the JSON the model reads: a string that is not JSON is wrapped as `{"result": ...}`;
 * anything but a string is an error result (a bug in the tool).
 */
export function normalizeResult(tool: string, result: unknown): string {
  if (typeof result !== 'string') {
    const kind = result === null ? 'null' : Array.isArray(result) ? 'array' : typeof result;
    return toolError(`Tool '${tool}' returned ${kind} instead of a JSON string (a bug in the tool)`);
  }
  return isJson(result) ? result : JSON.stringify({ result });
}

/** A normalized result longer than `maxChars`, cut in the middle and wrapped as `{"truncated": true, ...}`. */
export function capResult(tool: string, result: string, maxChars: number): string {
  if (result.length <= maxChars) return result;
  const { text, cutChars } = cutMiddle(result, maxChars);
  return JSON.stringify({ truncated: true, original_chars: result.length, cut_chars: cutChars, content: text });
}

/** Both, for a result from outside dispatch: normalized, then capped. */
export function finalizeResult(tool: string, result: unknown, maxChars: number): string {
  return capResult(tool, normalizeResult(tool, result), maxChars);
}

/** Model arguments arrive as a JSON string (possibly empty for no-argument tools) or as an object. */
export function parseArguments(raw: unknown): { ok: true; value: unknown } | { ok: false; error: string } {
  if (typeof raw !== 'string') return { ok: true, value: raw ?? {} };
  if (raw.trim() === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(raw) };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}
