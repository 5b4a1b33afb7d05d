// All activities of a tether worker, built from their dependencies. Worker-only.
import type { AgentActivities } from '../workflows/activity-contract.js';
import { createModelActivity, type ModelSettings } from './model.js';
import { createToolActivities, type ToolActivityDeps } from './tools.js';

export function createActivities(deps: ToolActivityDeps & { model: ModelSettings }): AgentActivities {
  return { ...createToolActivities(deps), callModel: createModelActivity(deps.model) };
}
