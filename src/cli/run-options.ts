// Turns `tether run` options into the agent workflow's input, refusing bad values with the option's name. Worker-only.
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { existsSync, statSync } from 'node:fs';
import type { AgentInput } from '../workflows/types.js';
import { CliError, listOption } from './errors.js';

export const DEFAULT_MODEL = 'gpt-4o-mini';

export interface RunFlags {
  model?: string;
  toolsets?: string;
  disable?: string;
  cwd?: string;
  maxTurns?: string;
  maxParallel?: string;
}

function positiveInt(value: string | undefined, option: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new CliError(`${option} must be a positive whole number, got '${value}'`);
  return n;
}

export function newWorkflowId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `tether-${stamp}-${randomBytes(3).toString('hex')}`;
}

export function runInput(task: string, flags: RunFlags): AgentInput {
  if (task.trim() === '') throw new CliError('the task is empty: tether run "<what the agent should do>"');
  const cwd = resolve(flags.cwd ?? process.cwd());
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) throw new CliError(`--cwd: ${cwd} is not a directory`);
  return {
    task,
    model: flags.model ?? process.env.TETHER_MODEL ?? DEFAULT_MODEL,
    enabledToolsets: listOption(flags.toolsets),
    disabledToolsets: listOption(flags.disable),
    cwd,
    limits: { maxTurns: positiveInt(flags.maxTurns, '--max-turns'), maxParallel: positiveInt(flags.maxParallel, '--max-parallel') },
  };
}
