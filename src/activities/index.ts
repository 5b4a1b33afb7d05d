// All activities of a tether worker, built from their dependencies. Worker-only.
import { Context } from '@temporalio/activity';
import { configPath } from '../config/config.js';
import type { AgentActivities, RunToolInput, RunToolOutput, StoreActivities } from '../common/activity-contract.js';
import { AllowlistBook, setWorkerAllowlist } from '../approval/allowlist-book.js';
import { createApprovalActivities } from './approvals.js';
import { createCheckpointActivities } from './checkpoints.js';
import { createGateActivities } from './gate.js';
import { holderActivities } from './holder-only.js';
import { ConversationCache } from './conversation-cache.js';
import { createModelActivity, createModelRouter, type ModelSettings } from './model.js';
import { configureStore, createStoreActivities } from './store.js';
import { createToolActivities, type ToolActivityDeps } from './tools.js';
import { LOOP_TOOL_NAMES } from '../common/loop-schemas.js';
import { TASK_TEXT_QUERY } from '../common/workflow-messages.js';
import { TaskTexts } from './task-text.js';
import { queryOwnWorkflow } from './workflow-query.js';

export function createActivities(
  deps: ToolActivityDeps & { model: ModelSettings; configFile?: string; allowlist?: AllowlistBook },
): AgentActivities & StoreActivities {
  configureStore({ shared: deps.config.store.shared });
  const complete = createModelRouter(deps.model);
  // What this worker lists and makes it holds, so model calls on it name those by digest instead of carrying them.
  const cache = new ConversationCache();
  const taskTexts = new TaskTexts(deps.log, {
    firstUserMessage: (run) => cache.firstUserMessage(run),
    ask: () => queryOwnWorkflow<string>(TASK_TEXT_QUERY),
  });
  const tools = createToolActivities({
    ...deps,
    loopHandled: deps.loopHandled ?? new Set(LOOP_TOOL_NAMES),
    taskText: (ref) => taskTexts.resolve(Context.current().info.workflowExecution?.workflowId ?? '', ref),
  });
  // Policy is read when the worker starts: command_allowlist as the configuration had it then, plus what `always`
  // adds while it runs (a config.yaml changed meanwhile changes nothing until the next start).
  const allowlist = deps.allowlist ?? new AllowlistBook(deps.config.command_allowlist, deps.configFile ?? configPath());
  setWorkerAllowlist(allowlist);
  const gate = createGateActivities({
    registry: deps.registry,
    config: deps.config,
    allowlist,
    workerQueue: deps.workerQueue,
  });
  const held = (input: RunToolInput, out: RunToolOutput): RunToolOutput => {
    // A call sent back for approval ran nothing: its result comes from the run that follows the decision.
    if (!out.assessment) cache.holdMessage({ role: 'tool', tool_call_id: input.callId, content: out.result });
    return out;
  };
  const runTool = async (input: RunToolInput): Promise<RunToolOutput> => held(input, await tools.runTool(input, gate));
  const runGatedTool = async (input: RunToolInput): Promise<RunToolOutput> =>
    held(input, await tools.runTool(input, gate, true));
  return {
    ...tools,
    async listTools(input) {
      const catalog = await tools.listTools(input);
      cache.holdTools(catalog.definitions);
      return catalog;
    },
    runTool,
    ...createStoreActivities(),
    ...createCheckpointActivities({ config: deps.config, log: deps.log }),
    ...createApprovalActivities({ config: deps.config, allowlist, log: deps.log, complete }),
    runGatedTool,
    assessCall: gate.assessCall,
    // A misrouted answer runs nothing and is not held as the call's result.
    ...holderActivities(deps.workerQueue, { runTool, runGatedTool, assessCall: gate.assessCall }),
    callModel: createModelActivity(complete, cache),
  };
}
