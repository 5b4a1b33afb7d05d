// The `session_search` tool's declaration: full-text search over past runs, handled by the agent loop (no dispatch handler). Workflow-safe schema.
import { z } from 'zod';
import { registry } from '../registry/index.js';

registry.register({
  name: 'session_search',
  toolset: 'session_search',
  emoji: '🗂️',
  description: 'Full-text search over the messages and tool results of past runs; results name the run and turn.',
  schema: z.object({
    query: z.string().min(1).describe('Words to search for'),
    limit: z.number().int().min(1).max(50).optional().describe('Most results to return (default 10)'),
  }),
  agentLoop: true,
  sideEffects: 'read-only',
  parallelSafe: true,
});
