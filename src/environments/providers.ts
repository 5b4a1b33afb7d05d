// Terminal backends added by plugins, by backend name: a factory that returns a Transport. Worker-only.
import type { Transport } from './types.js';

/** What a plugin gives for a backend: called with the task and its `terminal.<name>` settings, returns a Transport. */
export type EnvironmentFactory = (options: {
  taskId: string;
  cwd: string;
  settings: Record<string, unknown>;
}) => Transport;

const providers = new Map<string, { factory: EnvironmentFactory; source: string }>();

export function registerEnvironmentProvider(name: string, factory: EnvironmentFactory, source: string): void {
  providers.set(name, { factory, source });
}

export function environmentProvider(name: string): { factory: EnvironmentFactory; source: string } | undefined {
  return providers.get(name);
}
