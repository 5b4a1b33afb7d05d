// The configuration tools read their own sections from (web, browser, code_execution, ...): the worker's, once it
// set it; else config.yaml, read once. Worker-only.
import { loadConfig, type TetherConfig } from './config.js';

let current: TetherConfig | undefined;

export function currentConfig(): TetherConfig {
  current ??= loadConfig();
  return current;
}

/** The worker's configuration (tests set theirs). */
export function setCurrentConfig(config: TetherConfig): void {
  current = config;
}
