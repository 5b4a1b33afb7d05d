// Reads a batch file (JSON Lines): each line a task string or an object of run options; bad lines are reported, not fatal. Worker-only.
import { z } from 'zod';

const LineObject = z.strictObject({
  task: z.string().min(1),
  model: z.string().min(1).optional(),
  toolsets: z.union([z.string(), z.array(z.string())]).optional(),
  disable: z.union([z.string(), z.array(z.string())]).optional(),
  cwd: z.string().min(1).optional(),
  max_turns: z.number().int().positive().optional(),
});

export interface BatchItem {
  /** 1-based line number in the file. */
  line: number;
  task: string;
  model?: string;
  toolsets?: string;
  disable?: string;
  cwd?: string;
  maxTurns?: number;
  /** The line's text, which with the line number identifies the task across re-runs. */
  source: string;
}

export interface BadLine {
  line: number;
  error: string;
}

/** What a line is when it parses as JSON other than a string or object ("an array", "null", ...); else undefined. */
function jsonKind(source: string): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch {
    return undefined;
  }
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'string' || typeof value === 'object' ? undefined : `a ${typeof value}`;
}

const joinList = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v.join(',') : v);

/**
 * Blank lines and lines starting with '#' are skipped. A line starting with '{' or '"' must be JSON (an object
 * with `task`, or a string); a line that is other JSON (a list, a number, null, true) is refused; any other line
 * is the task text itself.
 */
export function parseBatchFile(text: string): { items: BatchItem[]; bad: BadLine[] } {
  const items: BatchItem[] = [];
  const bad: BadLine[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = i + 1;
    const source = raw.trim();
    if (source === '' || source.startsWith('#')) return;
    if (!source.startsWith('{') && !source.startsWith('"')) {
      // JSON that is not a task (`[1,2,3]`, `null`, `42`, `true`) is a mistake, not a task with that text.
      const kind = jsonKind(source);
      if (kind)
        bad.push({
          line,
          error: `JSON ${kind} is not a task: give the task's text, a JSON string, or an object with "task"`,
        });
      else items.push({ line, task: source, source });
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(source);
    } catch (err) {
      bad.push({ line, error: `not valid JSON: ${(err as Error).message}` });
      return;
    }
    if (typeof value === 'string') {
      if (value.trim() === '') bad.push({ line, error: 'the task is empty' });
      else items.push({ line, task: value, source });
      return;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      bad.push({
        line,
        error: `JSON ${jsonKind(source) ?? typeof value} is not a task: give the task's text, a JSON string, or an object with "task"`,
      });
      return;
    }
    const parsed = LineObject.safeParse(value);
    if (!parsed.success) {
      bad.push({
        line,
        error: parsed.error.issues.map((x) => `${x.path.join('.') || 'line'}: ${x.message}`).join('; '),
      });
      return;
    }
    const o = parsed.data;
    items.push({
      line,
      task: o.task,
      model: o.model,
      toolsets: joinList(o.toolsets),
      disable: joinList(o.disable),
      cwd: o.cwd,
      maxTurns: o.max_turns,
      source,
    });
  });
  return { items, bad };
}
