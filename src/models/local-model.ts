// Which local model a `local:<id>` name selects, whether its weights are installed, and the settings it runs with.
// Worker-only.
import { existsSync, readFileSync } from 'node:fs';
import { TetherError } from '../common/errors.js';
import { LOCAL_MODELS, localModelSpec, localNames, weightsPath, type LocalModelSpec } from './local-catalog.js';
import type { LocalModelSettings } from './local-provider.js';

/** The 135M model (`local:tiny`), the one TETHER_LOCAL_MODEL replaces the weights of. */
export const LOCAL_MODEL_NAME = 'local:smollm2-135m';

function positiveInt(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1)
    throw new TetherError('Config.Invalid', `${name}=${raw} must be a positive whole number`, false);
  return n;
}

/** Written beside a file the installer joined and checked: its sha256, so later runs need not hash 1 GB again. */
export const verifiedMarker = (file: string): string => `${file}.verified`;

/** The model's weights are in place (and, for a joined file, were checked by the installer). */
export function isInstalled(spec: LocalModelSpec, env: Record<string, string | undefined> = process.env): boolean {
  const file = weightsPath(spec, env);
  if (!existsSync(file)) return false;
  if (spec.source.kind !== 'parts') return true;
  try {
    return readFileSync(verifiedMarker(file), 'utf8').trim() === spec.source.sha256;
  } catch {
    return false;
  }
}

/**
 * Settings for a `local:<id>` model, or undefined when its weights are not installed. TETHER_LOCAL_MODEL (a GGUF
 * file) replaces the default model's weights. TETHER_LOCAL_MODEL_THREADS, TETHER_LOCAL_MODEL_CONTEXT (tokens) and
 * TETHER_LOCAL_MODEL_TOOL_ROUNDS override each model's own defaults (src/models/local-catalog.ts).
 */
export function localModelSettingsFor(model: string, env = process.env): LocalModelSettings | undefined {
  const spec = localModelSpec(model);
  if (!spec) throw new TetherError('Config.Invalid', `unknown local model '${model}' (known: ${localNames()})`, false);
  const explicit = spec.id === localModelSpec(LOCAL_MODEL_NAME)!.id ? env.TETHER_LOCAL_MODEL?.trim() : undefined;
  if (explicit && !existsSync(explicit)) {
    throw new TetherError(
      'Config.Invalid',
      `TETHER_LOCAL_MODEL=${explicit} does not exist (a GGUF weights file)`,
      false,
    );
  }
  const modelPath = explicit || (isInstalled(spec, env) ? weightsPath(spec, env) : undefined);
  if (!modelPath) return undefined;
  return {
    id: spec.id,
    format: spec.format,
    modelPath,
    threads: positiveInt(env, 'TETHER_LOCAL_MODEL_THREADS', spec.defaults.threads),
    contextSize: positiveInt(env, 'TETHER_LOCAL_MODEL_CONTEXT', spec.defaults.contextSize),
    maxToolRounds: positiveInt(env, 'TETHER_LOCAL_MODEL_TOOL_ROUNDS', spec.defaults.maxToolRounds),
  };
}

/** The 135M model's settings (TETHER_LOCAL_MODEL or the weights npm ci installs); undefined when neither exists. */
export function localModelSettings(env = process.env): LocalModelSettings | undefined {
  return localModelSettingsFor(LOCAL_MODEL_NAME, env);
}

/** Every known local model with whether it is installed (`tether model list`). */
export function localModels(): { spec: LocalModelSpec; installed: boolean }[] {
  return LOCAL_MODELS.map((spec) => ({ spec, installed: isInstalled(spec) }));
}

/** Looks a `local:` model up at each call, so weights installed after a worker started are found. */
export type LocalModelResolver = (model: string) => LocalModelSettings | undefined;

export function localModelResolver(env = process.env): LocalModelResolver {
  return (model) => localModelSettingsFor(model, env);
}
