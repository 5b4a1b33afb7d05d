// Terminal environment providers added by plugins, by backend name. The terminal backends issue consumes them. Worker-only.

/** What a plugin gives for a backend: a factory that the environment layer calls with the task's settings. */
export type EnvironmentFactory = (options: { taskId: string; cwd: string; settings: Record<string, unknown> }) => unknown;

const providers = new Map<string, { factory: EnvironmentFactory; source: string }>();

export function registerEnvironmentProvider(name: string, factory: EnvironmentFactory, source: string): void {
  providers.set(name, { factory, source });
}

export function environmentProvider(name: string): { factory: EnvironmentFactory; source: string } | undefined {
  return providers.get(name);
}
