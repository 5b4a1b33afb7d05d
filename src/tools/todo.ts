// The `todo` tool's declaration: the agent's plan, kept in workflow state by the agent loop (no dispatch handler). Workflow-safe schema.
import { TodoArgs } from '../common/loop-schemas.js';
import { registry } from '../registry/index.js';

registry.register({
  name: 'todo',
  toolset: 'todo',
  emoji: '📋',
  description:
    'Keep your plan for this task as a list of items with a status. Call with `todos` to replace or merge the list; ' +
    'call with no arguments to read it.',
  schema: TodoArgs,
  agentLoop: true,
  sideEffects: 'idempotent',
  parallelSafe: false,
});
