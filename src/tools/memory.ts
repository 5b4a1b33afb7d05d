// The `memory` tool's declaration: durable notes across sessions, handled by the agent loop (no dispatch handler). Workflow-safe schema.
import { z } from 'zod';
import { registry } from '../registry/index.js';

registry.register({
  name: 'memory',
  toolset: 'memory',
  emoji: '🧠',
  description: 'Durable notes that you keep across sessions: add, replace or remove an entry, or read them all.',
  schema: z.object({
    action: z.enum(['add', 'replace', 'remove', 'read']),
    content: z.string().optional().describe('The note text (add, replace)'),
    old_text: z.string().optional().describe('Text identifying the entry to replace or remove'),
  }),
  agentLoop: true,
  sideEffects: 'changes-world',
  parallelSafe: false,
});
