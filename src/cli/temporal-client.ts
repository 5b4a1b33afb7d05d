// How CLI commands reach Temporal through the SDK's client: connect and check, run a command with a client, worker presence. Worker-only.
import {
  Client,
  Connection,
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  WorkflowNotFoundError,
} from '@temporalio/client';
import { CliError } from './errors.js';
import { explainTemporalFailure } from './temporal-errors.js';
import type { TemporalSettings } from '../temporal/settings.js';
import { explainTlsMismatch, quietIpServerNameWarning } from '../temporal/tls-probe.js';
import { ensureTemporal } from './dev-server-start.js';
import { loadTracing } from '../observability/tracing-loader.js';

// Kept here for the commands that import them with the client.
export { DEFAULT_UI_PORT, devServerFiles, ensureTemporal, stopBackgroundServer } from './dev-server-start.js';

/**
 * Connects and checks the namespace, so an unreachable server or a missing namespace is one line naming the
 * variable before a command does anything.
 */
export async function connectClient(
  settings: TemporalSettings,
  opts: { traced?: boolean } = {},
): Promise<{ client: Client; close: () => Promise<void> }> {
  // A command that starts runs carries its trace context to them (one run, one trace) when the OTEL variables are
  // set; the SDK is loaded only then, never for commands that only look. A wrong value stops here, before connecting.
  const tracing = opts.traced ? await loadTracing() : undefined;
  // Encrypted runs are read (and runs started encrypted) with the workers' key file; a bad one stops here, named.
  const { tetherDataConverter } = await import('../payloads/data-converter.js');
  const payloads = tetherDataConverter();
  let connection: Connection;
  if (settings.tls) quietIpServerNameWarning();
  try {
    connection = await Connection.connect({ address: settings.address, tls: settings.tls, apiKey: settings.apiKey });
  } catch (err) {
    throw new CliError(
      (await explainTlsMismatch(settings)) ??
        explainTemporalFailure(err, settings) ??
        `cannot reach Temporal at ${settings.address} (TEMPORAL_ADDRESS): ${(err as Error).message}`,
      1,
    );
  }
  try {
    await connection.workflowService.describeNamespace({ namespace: settings.namespace });
  } catch (err) {
    await connection.close();
    throw new CliError(
      explainTemporalFailure(err, settings) ??
        `namespace '${settings.namespace}' (TEMPORAL_NAMESPACE): ${(err as Error).message}`,
      1,
    );
  }
  const interceptors = tracing ? { workflow: [tracing.clientInterceptor()] } : undefined;
  payloads.bind(connection, settings.namespace, settings.taskQueue);
  return {
    client: new Client({
      connection,
      namespace: settings.namespace,
      dataConverter: payloads.dataConverter,
      ...(interceptors ? { interceptors } : {}),
    }),
    close: () => connection.close(),
  };
}

/**
 * The identity of the worker that picked up the run's first workflow task within `waitMs` (it names the model
 * endpoint it calls: src/temporal/worker-identity.ts), or undefined when none did. Pollers listed by the server
 * linger for minutes after a worker dies, so this, not the poller list, decides whether to embed a worker.
 */
export async function runPickedUpBy(client: Client, workflowId: string, waitMs: number): Promise<string | undefined> {
  const deadline = Date.now() + waitMs;
  const handle = client.workflow.getHandle(workflowId);
  for (;;) {
    const history = await handle.fetchHistory();
    const started = (history.events ?? []).find((e) => e.workflowTaskStartedEventAttributes);
    if (started) return started.workflowTaskStartedEventAttributes?.identity ?? '';
    if (Date.now() >= deadline) return undefined;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Runs `fn` with a client for the configured (or embedded) Temporal; unknown runs and schedules become
 * clear CLI errors. The connection is closed afterwards.
 */
export async function withTemporal<T>(
  fn: (client: Client, settings: TemporalSettings) => Promise<T>,
  opts: { traced?: boolean } = {},
): Promise<T> {
  const settings = await ensureTemporal();
  const { client, close } = await connectClient(settings, opts);
  try {
    return await fn(client, settings);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new CliError(`no such run: ${err.workflowId ?? ''}`.trim(), 1);
    if (err instanceof ScheduleNotFoundError) throw new CliError(`no such schedule: ${err.scheduleId}`, 1);
    if (err instanceof ScheduleAlreadyRunning)
      throw new CliError(`a schedule with id '${err.scheduleId}' exists already`, 1);
    const line = explainTemporalFailure(err, settings);
    if (line) throw new CliError(line, 1);
    throw err;
  } finally {
    await close();
  }
}
