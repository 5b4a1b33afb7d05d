// The `todo` tool's declaration: the agent's plan, kept in workflow state by the agent loop (no dispatch handler). Workflow-safe schema.
import { z } from 'zod';
import { registry } from '../registry/index.js';

registry.register({
  name: 'todo',
  toolset: 'todo',
  emoji: '📋',
  description:
    'Keep your plan for this task as a list of items with a status. Call with `todos` to replace or merge the list; ' +
    'call with no arguments to read it.',
  schema: z.object({
    todos: z
      .array(
        z.object({
          id: z.string().min(1).describe('Stable identifier of the item'),
          content: z.string().min(1).describe('What to do'),
          status: z.enum(['pending', 'in_progress', 'completed', 'cancelled']),
        }),
      )
      .optional()
      .describe('Items to write; omit to read the current list'),
    merge: z.boolean().optional().describe('Update items by id instead of replacing the whole list'),
  }),
  agentLoop: true,
  sideEffects: 'idempotent',
  parallelSafe: false,
});
