// The `memory` tool's declaration: durable notes across sessions, handled by the agent loop (no dispatch handler). Workflow-safe schema.
import { MemoryArgs } from '../common/loop-schemas.js';
import { registry } from '../registry/index.js';

registry.register({
  name: 'memory',
  toolset: 'memory',
  emoji: '🧠',
  description: 'Durable notes that you keep across sessions: add, replace or remove an entry, or read them all.',
  schema: MemoryArgs,
  agentLoop: true,
  sideEffects: 'changes-world',
  parallelSafe: false,
});
