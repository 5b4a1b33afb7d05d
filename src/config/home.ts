// Where tether keeps its state (config, logs, databases): TETHER_HOME, default ~/.tether. Worker-only.
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export function tetherHome(): string {
  const fromEnv = process.env.TETHER_HOME;
  return fromEnv && fromEnv.trim() !== '' ? resolve(fromEnv) : join(homedir(), '.tether');
}
