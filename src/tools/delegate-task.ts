// The `delegate_task` tool's declaration: sub-agents as child workflows, handled by the agent loop (no dispatch handler). Workflow-safe schema.
import { DelegateArgs } from '../common/loop-schemas.js';
import { registry } from '../registry/index.js';

registry.register({
  name: 'delegate_task',
  toolset: 'delegation',
  emoji: '🤝',
  description: 'Hand one or several self-contained tasks to sub-agents; each returns its final answer as the result.',
  schema: DelegateArgs,
  agentLoop: true,
  sideEffects: 'changes-world',
  parallelSafe: false,
});
