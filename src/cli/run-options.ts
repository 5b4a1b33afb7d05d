// Turns `tether run` options into the agent workflow's input, refusing bad values with the option's name. Worker-only.
import { resolve } from 'node:path';
import { existsSync, statSync } from 'node:fs';
import { localModelSpec, localNames } from '../models/local-catalog.js';
import { LOCAL_PREFIX } from '../models/types.js';
import { chooseModelWithReason, type ModelChoice } from '../models/default-model.js';
import { loadConfig } from '../config/config.js';
import type { Command } from 'commander';
import type { AgentInput } from '../common/types.js';
import { CliError, listOption, positiveIntOption } from './errors.js';
import { builtinBackendNames } from '../environments/backends.js';

/** What `--model` says it defaults to, in every command that takes it. */
export const MODEL_OPTION_HELP =
  "model name (default: TETHER_MODEL, else config.yaml's model:, else gpt-4o-mini with OPENAI_API_KEY or OPENAI_BASE_URL, else the local local:qwen2.5-coder-1.5b, or local:tiny with under 3 GiB free memory)";

const choiceNoted = new Set<string>();

/**
 * --model, else TETHER_MODEL, else config.yaml's `model:`, else gpt-4o-mini with an endpoint configured, else the
 * local default (src/models/default-model.ts); a choice made for a small machine says so, once, on standard error.
 */
export function chooseModel(flag: string | undefined, env = process.env): string {
  const choice = modelChoice(flag, env);
  if (choice.note && !choiceNoted.has(choice.note)) {
    choiceNoted.add(choice.note);
    process.stderr.write(`${choice.note}\n`);
  }
  return choice.model;
}

/** The model and where the choice came from (`tether config show`); config.yaml is read for its `model:`. */
export function modelChoice(flag: string | undefined, env = process.env): ModelChoice {
  const named = flag?.trim() || env.TETHER_MODEL?.trim();
  return chooseModelWithReason(flag, named ? undefined : loadConfig().model, env);
}

/**
 * The options every command that starts runs takes (run, schedule create, batch), declared once. `scope` words the
 * help: a run's own ("the tools' working directory") or a default for each line of a batch.
 */
export function addRunOptions(cmd: Command, scope: 'run' | 'schedule' | 'batch'): Command {
  const lines = scope === 'batch' ? ', for lines that do not set it' : '';
  return cmd
    .option('--model <name>', `${MODEL_OPTION_HELP}${lines}`)
    .option('--toolsets <names>', `only these toolsets (comma-separated)${lines}`)
    .option('--disable <names>', `leave out these toolsets (comma-separated)${lines}`)
    .option(
      '--cwd <dir>',
      `the tools' working directory (default: the current directory${scope === 'schedule' ? ', on the worker' : ''})${lines}`,
    )
    .option('--max-turns <n>', `stop after this many model turns (default 50)${lines}`)
    .option('--max-parallel <n>', 'tool calls running at once (default 8)')
    .option(
      '--approval-mode <mode>',
      "manual (ask a person), smart (ask a model first) or off (never ask; hardline still refused); default approvals.mode of the worker's config.yaml",
    )
    .option(
      '--approval-timeout <seconds>',
      'a pending approval counts as denied after this long (default approvals.timeout, 1 hour)',
    )
    .option(
      '--backend <name>',
      "where terminal commands run (local, docker, ssh, ...; default terminal.backend of the worker's config.yaml)",
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
