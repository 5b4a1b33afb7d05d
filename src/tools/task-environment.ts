// Helper for tools that run in the task's terminal environment (registers nothing): acquires it, maps backend
// failures to the right channel, and formats output for the model. Worker-only.
import { environmentManager } from '../environments/current.js';
import { formatOutput } from '../environments/format-output.js';
import type { Acquired } from '../environments/manager.js';
import { secretValues } from '../common/redact.js';
import { EnvironmentError } from '../environments/types.js';
import type { ToolContext } from '../registry/types.js';

/**
 * Runs `fn` in the task's environment and adds `environment_recreated` to its JSON result when the environment
 * was made anew. A backend that cannot be reached, or an environment that vanished, is a retryable
 * infrastructure failure naming the backend; an unsupported request or a bad setting is an error the model sees.
 */
export async function inTaskEnvironment(
  ctx: ToolContext,
  fn: (a: Acquired) => Promise<Record<string, unknown>>,
): Promise<string> {
  const manager = environmentManager();
  try {
    return await manager.use(
      ctx.taskId,
      { hostCwd: ctx.cwd, expected: ctx.environmentExpected, backend: ctx.backend },
      async (a) => {
        const result = await fn(a);
        return JSON.stringify(a.recreated ? { ...result, environment_recreated: a.recreated } : result);
      },
    );
  } catch (err) {
    // Unreachable and gone stay what they are (retried by Temporal under their own failure type); the rest the model sees.
    if (err instanceof EnvironmentError && !err.retryable) return JSON.stringify({ error: err.message });
    throw err;
  }
}

/**
 * Availability of the environment tools: hidden (with the reason) when the configured backend cannot be used here,
 * such as a cloud backend without credentials. One function, so the check runs once for all of them.
 */
export function environmentAvailable(): boolean {
  const manager = environmentManager();
  if (manager.unavailable)
    throw new Error(`terminal backend '${manager.terminal.backend}' cannot be used: ${manager.unavailable}`);
  return true;
}

/** Output as the model reads it: cleaned, secrets of the worker's and the task's variables hidden, capped. */
export function modelOutput(raw: string | Buffer, maxChars = environmentManager().terminal.output_chars): string {
  const text = typeof raw === 'string' ? raw : raw.toString('utf8');
  return formatOutput(text, { maxChars, secrets: secretValues(process.env, environmentManager().terminal.env) });
}
