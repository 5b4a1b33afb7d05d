// The process's environment manager: set up by the worker from its configuration; defaults (local backend) otherwise. Worker-only.
import { hostname, platform } from 'node:os';
import { randomBytes } from 'node:crypto';
import { parseConfig, type TerminalConfig } from '../config/config.js';
import { lazyLogger, type Logger } from '../logging/logger.js';
import { checkTerminalSections, resolveBackend } from './backends.js';
import { EnvironmentManager } from './manager.js';
import { egressGate } from './egress/gate.js';
import { LocalSettingsSchema, taskView, type LocalSettings } from './backends/local/settings.js';
import type { TaskView } from './task-view.js';

let current: EnvironmentManager | undefined;
let view: TaskView | undefined;

/** Whether this worker's tasks reach the outside through the egress proxy (the local sandbox's, or Docker's). */
function usesEgressProxy(local: LocalSettings, backend: string, settings: unknown): boolean {
  const s = local.sandbox;
  if (s.enabled && s.network === 'proxy' && platform() === 'linux') return true;
  return backend === 'docker' && (settings as { egress?: boolean }).egress === true;
}

/** This process's id among workers: host, pid and a random part (a pid can be reused after a restart). */
export const WORKER_ID = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;

/**
 * Replaces the manager (closing the old one's environments). The selected backend's settings are checked now,
 * so a wrong setting stops the worker at start with a message that names it.
 */
export async function configureEnvironments(
  terminal: TerminalConfig,
  log: Logger = lazyLogger,
): Promise<EnvironmentManager> {
  const { definition, settings } = await resolveBackend(terminal);
  await checkTerminalSections(terminal);
  // One egress policy per worker, whichever backend's sandbox uses the proxy (local, or Docker with egress on).
  const local = (await resolveBackend(terminal, 'local')).settings as LocalSettings;
  egressGate().configure({ policy: local.sandbox.egress, log });
  // Credentials and the proxy's CA are ready before any task's proxy opens, and a problem stops the worker now.
  egressGate().prepareCredentials(local.sandbox.egress.credentials);
  if (usesEgressProxy(local, definition.name, settings)) await egressGate().trust();
  view = taskView(local);
  const warnings = (await definition.preflight?.(settings)) ?? [];
  for (const w of warnings) log.warn({ backend: definition.name }, w);
  const old = current;
  current = new EnvironmentManager({
    terminal,
    workerId: WORKER_ID,
    log,
    unavailable: definition.unavailable?.(settings),
    warnings,
  });
  await old?.closeAll();
  return current;
}

/**
 * What every tool of a task sees of this machine (task-view.ts): the local sandbox's hidden paths, whichever backend
 * runs the commands, since the file tools work on this machine's task directory.
 */
export function currentTaskView(): TaskView {
  view ??= taskView(LocalSettingsSchema.parse({}));
  return view;
}

export function environmentManager(): EnvironmentManager {
  current ??= new EnvironmentManager({ terminal: parseConfig({}).terminal, workerId: WORKER_ID, log: lazyLogger });
  return current;
}

/** Closes every environment of this process (worker shut-down). */
export async function closeEnvironments(): Promise<void> {
  const m = current;
  current = undefined;
  await m?.closeAll();
}
