// Where tether keeps its state (config, logs, databases): TETHER_HOME, default ~/.tether. Worker-only.
import { accessSync, constants, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { TetherError } from '../common/errors.js';

export function tetherHome(env: Record<string, string | undefined> = process.env): string {
  const fromEnv = env.TETHER_HOME;
  return fromEnv && fromEnv.trim() !== '' ? resolve(fromEnv) : join(homedir(), '.tether');
}

/** The config file: TETHER_CONFIG, default config.yaml in TETHER_HOME. */
export function configPath(): string {
  return process.env.TETHER_CONFIG ?? join(tetherHome(), 'config.yaml');
}

/**
 * `mkdir -p` one level at a time. Node's own `recursive: true` loops forever on some paths (under /proc it
 * gets ENOENT for a directory it just failed to make and tries again), which made `tether exec` spin.
 */
export function makeDirs(dir: string): void {
  const missing: string[] = [];
  for (let d = resolve(dir); !existsSync(d); d = dirname(d)) {
    missing.unshift(d);
    if (dirname(d) === d) break;
  }
  for (const d of missing) {
    try {
      mkdirSync(d);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

let checked: string | undefined;

/** Makes TETHER_HOME if needed and proves it writable; a failure is one line naming TETHER_HOME. */
export function ensureTetherHome(): string {
  const home = tetherHome();
  if (checked === home) return home;
  const named = process.env.TETHER_HOME?.trim()
    ? `TETHER_HOME=${process.env.TETHER_HOME}`
    : `TETHER_HOME (default ${home})`;
  try {
    makeDirs(home);
    accessSync(home, constants.W_OK);
    // access() says yes to root everywhere; only a real write tells (a read-only mount, /proc, /sys).
    const probe = join(home, `.write-test-${process.pid}`);
    writeFileSync(probe, '');
    rmSync(probe, { force: true });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new TetherError(
      'Config.Invalid',
      `${named} cannot be created or written (${e.code ?? e.message}): set TETHER_HOME to a directory you can write to`,
      false,
    );
  }
  checked = home;
  return home;
}
