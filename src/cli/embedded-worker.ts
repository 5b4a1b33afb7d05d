// Runs a worker inside a CLI command for as long as the command needs it (tether run, tether batch). Worker-only.
import type { TemporalSettings } from '../temporal/settings.js';
import { loadConfig } from '../config/config.js';
import { closeTools, createWorker, installRuntimeLogging } from '../worker.js';

/**
 * Runs `fn` with a worker polling the task queue in this process. On Ctrl-C the Temporal runtime stops the
 * worker too; then this resolves to undefined and the runs go on on the server for the next worker.
 */
export async function withEmbeddedWorker<T>(
  settings: TemporalSettings,
  stop: AbortSignal,
  fn: () => Promise<T>,
): Promise<T | undefined> {
  // Read before the Temporal runtime starts: a refused setting then ends the command with its one line (a runtime
  // already running would keep the process alive after it).
  const config = loadConfig();
  installRuntimeLogging();
  const { worker, connection } = await createWorker({ settings, shutdownGraceTime: '5 seconds', config });
  try {
    return await worker.runUntil(fn()).catch((err: unknown) => {
      if (stop.aborted) return undefined;
      throw err;
    });
  } finally {
    await connection.close();
    await closeTools();
  }
}

export { interruptSignal } from './interrupt.js';
