// One-line summaries of tool calls for progress lines and the Temporal UI. Pure and workflow-safe.
import { cutOutsideSecrets } from '../approval/approval-text.js';

const MAX = 72;

/**
 * One line: ordinary white space (spaces, tabs, line feeds) joined, every other character kept, so the views that
 * render a summary (as an approval's text is rendered) escape a carriage return or a no-break space instead of
 * passing it for a space; never cut inside a secret value.
 */
function clip(text: string): string {
  return cutOutsideSecrets(text.replace(/[ \t\n]+/g, ' ').trim(), MAX);
}

/** The most telling argument (command, path, query, ...) or the raw arguments, shortened to one line. */
export function summariseArgs(args: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(args || '{}');
  } catch {
    return clip(`(invalid JSON) ${args}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return clip(args);
  const record = parsed as Record<string, unknown>;
  for (const key of ['command', 'path', 'pattern', 'query', 'url', 'task', 'goal']) {
    const v = record[key];
    if (typeof v === 'string') return clip(v);
  }
  // The model's own text, not the parsed value written again: arguments nested 100,000 deep parse, but would not print.
  return clip(args);
}

/** Characters of a call's arguments, result or a reply kept in the state for followers (queries, not history). */
const VIEW_CHARS = 8_000;

/** `text` cut to `max` characters, saying how much was left out. */
export function capText(text: string, max = VIEW_CHARS): string {
  return text.length > max ? `${text.slice(0, max)}\n… (${text.length - max} more characters)` : text;
}
