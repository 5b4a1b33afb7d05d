// The `delegate_task` tool's declaration: sub-agents as child workflows, handled by the agent loop (no dispatch handler). Workflow-safe schema.
import { z } from 'zod';
import { registry } from '../registry/index.js';

registry.register({
  name: 'delegate_task',
  toolset: 'delegation',
  emoji: '🤝',
  description: 'Hand one or several self-contained tasks to sub-agents; each returns its final answer as the result.',
  schema: z.object({
    tasks: z
      .array(
        z.object({
          goal: z.string().min(1).describe('What the sub-agent must achieve, with all the context it needs'),
          toolsets: z.array(z.string()).optional().describe('Toolsets the sub-agent may use'),
          max_turns: z.number().int().min(1).max(200).optional(),
        }),
      )
      .min(1),
  }),
  agentLoop: true,
  sideEffects: 'changes-world',
  parallelSafe: false,
});
