// Argument schemas of the agent-loop tools (todo, memory, session_search, delegate_task, clarify): shared by their
// registrations and by the workflow that handles them. Pure and workflow-safe (zod only).
import { z } from 'zod';

/** The tools the agent workflow handles itself; the worker offers them to the model because the workflow does. */
export const LOOP_TOOL_NAMES: readonly string[] = ['todo', 'memory', 'session_search', 'delegate_task', 'clarify'];

export const TodoArgs = z.object({
  todos: z
    .array(
      z.object({
        id: z.string().min(1).describe('Stable identifier of the item'),
        content: z.string().min(1).describe('What to do'),
        status: z.enum(['pending', 'in_progress', 'completed', 'cancelled']),
      }),
    )
    .max(100)
    .optional()
    .describe('Items to write; omit to read the current list'),
  merge: z.boolean().optional().describe('Update items by id instead of replacing the whole list'),
});

export const MemoryArgs = z.object({
  action: z.enum(['add', 'replace', 'remove', 'read']),
  content: z.string().optional().describe('The note text (add, replace)'),
  old_text: z.string().optional().describe('Text identifying the entry to replace or remove'),
});

export const SessionSearchArgs = z.object({
  query: z.string().min(1).describe('Words to search for'),
  limit: z.number().int().min(1).max(50).optional().describe('Most results to return (default 10)'),
});

export const DelegateArgs = z.object({
  tasks: z
    .array(
      z.object({
        goal: z.string().min(1).describe('What the sub-agent must achieve, with all the context it needs'),
        toolsets: z
          .array(z.string())
          .optional()
          .describe('Toolsets the sub-agent may use (default: your own, without delegation)'),
        max_turns: z.number().int().min(1).max(200).optional().describe('Turn limit of the sub-agent (default 30)'),
      }),
    )
    .min(1)
    .max(10),
});

export const ClarifyArgs = z.object({
  question: z.string().min(1).max(2000).describe('The question for the user'),
  choices: z
    .array(z.string().min(1))
    .max(6)
    .optional()
    .describe('Answers to offer, if the question has a few obvious ones'),
});

export type TodoItem = NonNullable<z.infer<typeof TodoArgs>['todos']>[number];

/** Parses a loop tool's arguments; the error names the tool and each wrong field. */
export function parseLoopArgs<T>(
  schema: z.ZodType<T>,
  tool: string,
  raw: string,
): { ok: true; value: T } | { ok: false; error: string } {
  let value: unknown;
  try {
    value = raw.trim() === '' ? {} : JSON.parse(raw);
  } catch (err) {
    return { ok: false, error: `Invalid arguments for ${tool}: not JSON (${(err as Error).message})` };
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(arguments)'}: ${i.message}`);
  return { ok: false, error: `Invalid arguments for ${tool}: ${issues.join('; ')}` };
}
