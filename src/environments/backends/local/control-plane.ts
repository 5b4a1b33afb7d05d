// What a local command must never hold: tether's own secrets and the credentials that reach its Temporal server.
// With them a command could approve its own commands or start runs of its own. Worker-only (reads the environment).
import { statSync } from 'node:fs';
import { configPath, tetherHome } from '../../../config/home.js';
import { CONTROL_PLANE_VARIABLES } from '../../../common/environment-variables.js';

/** `env` without the control-plane credentials. */
export function withoutControlPlane(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out = { ...env };
  for (const name of CONTROL_PLANE_VARIABLES) delete out[name];
  return out;
}

/**
 * Paths the sandbox hides: TETHER_HOME (the config with its keys, the inbox token, the gateway's nonces, every
 * run's transcript), the config file when TETHER_CONFIG puts it elsewhere, and the mTLS certificate and key files.
 * As named: the sandbox resolves links and skips what does not exist, as for the configured `hidden` paths.
 */
export function controlPlanePaths(env: NodeJS.ProcessEnv = process.env): string[] {
  const named = [tetherHome(), configPath(), env.TEMPORAL_TLS_CERT, env.TEMPORAL_TLS_KEY];
  return named.filter((p): p is string => typeof p === 'string' && p !== '');
}

/** Whether `path` is a directory (hidden under an empty file system) rather than a file (hidden behind /dev/null). */
export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
