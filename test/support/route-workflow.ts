// Workflow for test/environment-eager.test.ts (workflow-safe): one environment call through the real routing code.
import type { RunToolInput, RunToolOutput } from '../../src/common/activity-contract.js';
import type { ToolMeta } from '../../src/common/types.js';
import { runRouted, type EnvironmentRoute } from '../../src/workflows/environment-route.js';

const TERMINAL: ToolMeta = {
  emoji: '💻',
  parallelSafe: false,
  sideEffects: 'changes-world',
  environment: true,
  timeoutSeconds: 30,
};

export async function routedCall(
  route: EnvironmentRoute,
  input: RunToolInput,
): Promise<{ out: RunToolOutput; route: EnvironmentRoute }> {
  const out = await runRouted(route, { startToCloseTimeout: '30 seconds' }, TERMINAL, input);
  return { out, route };
}
