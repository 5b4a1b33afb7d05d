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
 * A string that is not JSON is wrapped as `{"result": ...}`; one longer than `maxChars` is cut in the middle
 * and wrapped as `{"truncated": true, ...}` so that the model still receives valid JSON.
 */
export function finalizeResult(tool: string, result: unknown, maxChars: number): string {
  if (typeof result !== 'string') {
    const kind = result === null ? 'null' : Array.isArray(result) ? 'array' : typeof result;
    return toolError(`Tool '${tool}' returned ${kind} instead of a JSON string (a bug in the tool)`);
  }
  if (result.length > maxChars) {
    const { text, cutChars } = cutMiddle(result, maxChars);
    return JSON.stringify({
      truncated: true,
      original_chars: result.length,
      cut_chars: cutChars,
      content: text,
    });
  }
  return isJson(result) ? result : JSON.stringify({ result });
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
