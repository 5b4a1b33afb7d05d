// Turns `tether run` options into the agent workflow's input, refusing bad values with the option's name. Worker-only.
import { resolve } from 'node:path';
import { existsSync, statSync } from 'node:fs';
import { LOCAL_MODEL_NAME, localModelSettings } from '../models/local-model.js';
import { localModelSpec, localNames } from '../models/local-catalog.js';
import { LOCAL_PREFIX } from '../models/types.js';
import { isOpenAIConfigured, openAISettingsFromEnv } from '../models/openai-provider.js';
import type { AgentInput } from '../common/types.js';
import { CliError, listOption, positiveIntOption } from './errors.js';
import { builtinBackendNames } from '../environments/backends.js';

const DEFAULT_MODEL = 'gpt-4o-mini';

/**
 * --model, else TETHER_MODEL, else gpt-4o-mini when an OpenAI-compatible endpoint is configured, else the local
 * demonstration model when its weights are installed.
 */
export function chooseModel(flag: string | undefined, env = process.env): string {
  const named = flag ?? (env.TETHER_MODEL?.trim() || undefined);
  if (named) return named;
  if (isOpenAIConfigured(openAISettingsFromEnv(env))) return DEFAULT_MODEL;
  if (localModelSettings(env)) return LOCAL_MODEL_NAME;
  throw new CliError(
    'no model: set OPENAI_API_KEY (OpenAI) or OPENAI_BASE_URL (any OpenAI-compatible server), ' +
      "or install the local demonstration model with 'npm run setup:local-model'",
  );
}

export interface RunFlags {
  model?: string;
  toolsets?: string;
  disable?: string;
  cwd?: string;
  maxTurns?: string;
  maxParallel?: string;
  approvalMode?: string;
  approvalTimeout?: string;
  backend?: string;
}

const MODES = ['manual', 'smart', 'off'] as const;

function approvalModeOption(value: string | undefined): AgentInput['approvalMode'] {
  if (value === undefined) return undefined;
  if (!(MODES as readonly string[]).includes(value))
    throw new CliError(`--approval-mode: '${value}' is not one of ${MODES.join(', ')}`);
  return value as AgentInput['approvalMode'];
}

function backendOption(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!/^[a-z][a-z0-9_-]*$/.test(value))
    throw new CliError(
      `--backend: '${value}' is not a backend name (${builtinBackendNames().join(', ')}, or a plugin's)`,
    );
  return value;
}

export function runInput(task: string, flags: RunFlags): AgentInput {
  if (task.trim() === '') throw new CliError('the task is empty: tether run "<what the agent should do>"');
  const cwd = resolve(flags.cwd ?? process.cwd());
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) throw new CliError(`--cwd: ${cwd} is not a directory`);
  const model = chooseModel(flags.model);
  const local = localModelSpec(model);
  if (model.startsWith(LOCAL_PREFIX) && !local)
    throw new CliError(`--model: unknown local model '${model}' (known: ${localNames()})`);
  // A small local model gets the tools its catalog entry names unless told otherwise: the 135M one writes random
  // commands, so it only reads; neither gets the web or a browser (they would fetch made-up URLs).
  const demo = flags.toolsets === undefined && local !== undefined;
  const enabledToolsets = listOption(flags.toolsets) ?? (demo ? local.toolsets : undefined);
  const disabledToolsets = listOption(flags.disable) ?? (demo ? local.disabledToolsets : undefined);
  return {
    task,
    model,
    enabledToolsets,
    disabledToolsets,
    cwd,
    limits: {
      maxTurns: positiveIntOption(flags.maxTurns, '--max-turns'),
      maxParallel: positiveIntOption(flags.maxParallel, '--max-parallel'),
    },
    approvalMode: approvalModeOption(flags.approvalMode),
    approvalTimeoutSeconds: positiveIntOption(flags.approvalTimeout, '--approval-timeout'),
    backend: backendOption(flags.backend),
  };
}
