// Starts OpenTelemetry tracing once per process, and only when the OTEL variables ask for it: the SDK is imported
// here on demand, so a worker or command without them loads none of it. Worker-only.
import { otelSettings } from './otel-env.js';
import type { ActiveTracing } from './tracing.js';

let started: Promise<ActiveTracing> | undefined;

/** The process's tracing, started now if the variables are set; undefined when they are not. */
export function loadTracing(env: NodeJS.ProcessEnv = process.env): Promise<ActiveTracing | undefined> {
  if (started) return started;
  const settings = otelSettings(env); // a wrong value throws here, naming the variable
  if (!settings) return Promise.resolve(undefined);
  started = import('./tracing.js').then((m) => m.startTracing(settings));
  return started;
}

/** Whether this process has started tracing (for tests and the worker's ready line). */
export function tracingLoaded(): boolean {
  return started !== undefined;
}

/** Sends the spans still buffered and stops exporting; a no-op when tracing never started. */
export async function shutdownTracing(): Promise<void> {
  const current = started;
  started = undefined;
  if (!current) return;
  try {
    await (await current).shutdown();
  } catch {
    // An unreachable collector must not turn a finished command into a failed one; the exporter logged it.
  }
}
