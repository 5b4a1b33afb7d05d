// The `session_search` tool's declaration: full-text search over past runs, handled by the agent loop (no dispatch handler). Workflow-safe schema.
import { SessionSearchArgs } from '../common/loop-schemas.js';
import { registry } from '../registry/index.js';

registry.register({
  name: 'session_search',
  toolset: 'session_search',
  emoji: '🗂️',
  description: 'Full-text search over the messages and tool results of past runs; results name the run and turn.',
  schema: SessionSearchArgs,
  agentLoop: true,
  sideEffects: 'read-only',
  parallelSafe: true,
});
