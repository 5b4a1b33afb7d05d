// Where CLI commands find Temporal: the configured one, or tether's own dev server, started in the background when
// none is configured and none runs (no SDK client is loaded here). Worker-only.
import { readFileSync, writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { makeDirs, tetherHome } from '../config/home.js';
import { DEFAULT_PORT, temporalSettings, type TemporalSettings } from '../temporal/settings.js';
import { isListening, startDevServer } from '../temporal/dev-server.js';

export const DEFAULT_UI_PORT = 8233;

export function devServerFiles(): { dir: string; db: string; pid: string; log: string } {
  const dir = join(tetherHome(), 'temporal');
  return {
    dir,
    db: join(dir, 'dev-server.sqlite'),
    pid: join(dir, 'dev-server.pid'),
    log: join(tetherHome(), 'logs', 'temporal-server.log'),
  };
}

/**
 * With TEMPORAL_ADDRESS unset and nothing on the default port, starts the dev server in the background
 * (SQLite under TETHER_HOME, so runs survive a restart) and leaves it running for later commands.
 */
export async function ensureTemporal(
  note = (line: string): void => void process.stderr.write(`${line}\n`),
): Promise<TemporalSettings> {
  const settings = temporalSettings();
  if (!settings.embedded || (await isListening(DEFAULT_PORT))) return settings;
  const files = devServerFiles();
  makeDirs(files.dir);
  const uiPort = (await isListening(DEFAULT_UI_PORT)) ? undefined : DEFAULT_UI_PORT;
  const server = await startDevServer({
    port: DEFAULT_PORT,
    uiPort,
    dbFile: files.db,
    logFile: files.log,
    detached: true,
  });
  writeFileSync(files.pid, String(server.pid));
  note(
    `Started the Temporal dev server on ${server.address}${server.uiAddress ? ` (UI ${server.uiAddress})` : ''}, ` +
      `state in ${files.db}. It keeps running; 'tether server stop' stops it.`,
  );
  return settings;
}

/** Stops a dev server that `ensureTemporal` started; false when there was none (or the pid file is stale). */
export function stopBackgroundServer(): boolean {
  const { pid } = devServerFiles();
  let value: number;
  try {
    value = Number(readFileSync(pid, 'utf8').trim());
  } catch {
    return false;
  }
  rmSync(pid, { force: true });
  // A stale pid may belong to another process by now: only a temporal process is signalled.
  if (!Number.isInteger(value) || value < 1) return false;
  let cmdline = '';
  try {
    cmdline = readFileSync(`/proc/${value}/cmdline`, 'utf8');
  } catch {
    return false;
  }
  if (!cmdline.includes('temporal') || !cmdline.includes('start-dev')) return false;
  try {
    process.kill(value, 'SIGTERM');
    return true;
  } catch {
    return false;
  }
}
