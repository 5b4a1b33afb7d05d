// The `clarify` tool's declaration: ask the user a question and wait for the answer, handled by the agent loop. Workflow-safe schema.
import { registry } from '../registry/index.js';
import { ClarifyArgs } from '../common/loop-schemas.js';

registry.register({
  name: 'clarify',
  toolset: 'clarify',
  emoji: '❓',
  description:
    'Ask the user a question and wait for the answer (they reply with `tether answer`). Use it only when you cannot go on ' +
    'without their decision; if no answer comes in time you are told so.',
  schema: ClarifyArgs,
  agentLoop: true,
  sideEffects: 'read-only',
  parallelSafe: false,
});
