// The process logger: pino JSON lines in a file under TETHER_HOME, never over the terminal display. Worker-only.
import { join } from 'node:path';
import { pino } from 'pino';
import { ensureTetherHome, makeDirs } from '../config/home.js';

/** The subset of a pino logger the rest of the code relies on, so tests can pass a recorder. */
export interface Logger {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
  debug(obj: object, msg: string): void;
}

let shared: Logger | undefined;

/** Log file: `$TETHER_HOME/logs/tether.log`; level from TETHER_LOG_LEVEL (default info). */
export function getLogger(): Logger {
  if (!shared) {
    const dir = join(ensureTetherHome(), 'logs');
    makeDirs(dir);
    shared = pino(
      { level: process.env.TETHER_LOG_LEVEL ?? 'info', base: { pid: process.pid } },
      pino.destination({ dest: join(dir, 'tether.log'), sync: true }),
    );
  }
  return shared;
}

/** A logger that forwards to the shared one on first use, so importing a module never creates log files. */
export const lazyLogger: Logger = {
  warn: (obj, msg) => getLogger().warn(obj, msg),
  info: (obj, msg) => getLogger().info(obj, msg),
  error: (obj, msg) => getLogger().error(obj, msg),
  debug: (obj, msg) => getLogger().debug(obj, msg),
};
