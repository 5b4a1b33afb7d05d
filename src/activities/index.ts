// All activities of a tether worker, built from their dependencies. Worker-only.
import { configPath } from '../config/config.js';
import type { AgentActivities } from '../common/activity-contract.js';
import { createApprovalActivities } from './approvals.js';
import { createGateActivities } from './gate.js';
import { createModelActivity, createModelRouter, type ModelSettings } from './model.js';
import { createStoreActivities } from './store.js';
import { createToolActivities, type ToolActivityDeps } from './tools.js';
import { LOOP_TOOL_NAMES } from '../common/loop-schemas.js';

export function createActivities(
  deps: ToolActivityDeps & { model: ModelSettings; configFile?: string },
): AgentActivities {
  const complete = createModelRouter(deps.model);
  return {
    ...createToolActivities({ ...deps, loopHandled: deps.loopHandled ?? new Set(LOOP_TOOL_NAMES) }),
    ...createStoreActivities(),
    ...createApprovalActivities({
      config: deps.config,
      configFile: deps.configFile ?? configPath(),
      log: deps.log,
      complete,
    }),
    ...createGateActivities({
      registry: deps.registry,
      config: deps.config,
      configFile: deps.configFile ?? configPath(),
      log: deps.log,
      workerQueue: deps.workerQueue,
    }),
    callModel: createModelActivity(complete),
  };
}
