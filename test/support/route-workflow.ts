// Workflow for test/environment-eager.test.ts (workflow-safe): environment calls through the real routing code.
import { ActivityFailure } from '@temporalio/workflow';
import type { RunToolInput } from '../../src/common/activity-contract.js';
import type { SideEffects } from '../../src/common/tool-definition.js';
import type { ToolMeta } from '../../src/common/types.js';
import { runRouted, type EnvironmentRoute } from '../../src/workflows/environment-route.js';

/** Each call's result, or `lost` when it was reported as lost (a world-changing call that may have run). */
export async function routedCalls(
  route: EnvironmentRoute,
  inputs: RunToolInput[],
  sideEffects: SideEffects,
): Promise<{ results: string[]; route: EnvironmentRoute }> {
  const meta: ToolMeta = { emoji: '💻', parallelSafe: false, sideEffects, environment: true, timeoutSeconds: 30 };
  const results: string[] = [];
  for (const input of inputs) {
    try {
      const out = await runRouted(
        route,
        { startToCloseTimeout: '30 seconds', heartbeatTimeout: '1 second' },
        meta,
        input,
      );
      results.push(out.result);
    } catch (err) {
      if (!(err instanceof ActivityFailure)) throw err;
      results.push('lost');
    }
  }
  return { results, route };
}
