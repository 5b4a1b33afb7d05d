// The process-wide registry and hooks that tool modules register into, and the agent loop's call entry point. Worker-only.
import { lazyLogger } from '../logging/logger.js';
import { runToolCall, type CallOptions } from './handle-function-call.js';
import { Hooks } from './hooks.js';
import { ToolRegistry } from './registry.js';
import { toolCall } from './tool-call.js';

export const registry = new ToolRegistry();
export const hooks = new Hooks();

type HandleOptions = Partial<Omit<CallOptions, 'registry' | 'hooks' | 'log'>>;

/**
 * Runs one tool call for the model: pre hooks, dispatch, post and transform hooks, and a last wrapper
 * (`{"error": "Error executing <name>: ..."}`). Always a JSON string.
 */
export async function handleFunctionCall(
  name: string,
  args: unknown,
  taskId: string,
  userTask?: string,
  options: HandleOptions = {},
): Promise<string> {
  const outcome = await runToolCall(toolCall(registry, name, args), taskId, userTask, {
    registry,
    hooks,
    log: lazyLogger,
    cwd: options.cwd ?? process.cwd(),
    ...options,
  });
  return outcome.result;
}
