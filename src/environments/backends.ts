// The terminal backends by name: the built-in ones and those plugins registered; settings checked against each
// backend's schema. Worker-only.
import { z } from 'zod';
import { TERMINAL_KEYS, type TerminalConfig } from '../config/config.js';
import { TetherError } from '../common/errors.js';
import type { BackendDefinition } from './backend-types.js';
import { environmentProvider } from './providers.js';
import type { Transport } from './types.js';

type Loader = () => Promise<BackendDefinition<unknown>>;

/**
 * Built-in backends. A backend is a Transport plus its settings; everything else is shared. Each is loaded only
 * when selected, so a worker never pays for the cloud SDKs it does not use.
 */
const BUILTIN: Record<string, Loader> = {
  local: async () => (await import('./backends/local/transport.js')).localBackend as BackendDefinition<unknown>,
  docker: async () => (await import('./backends/docker/transport.js')).dockerBackend as BackendDefinition<unknown>,
  ssh: async () => (await import('./backends/ssh/transport.js')).sshBackend as BackendDefinition<unknown>,
  singularity: async () =>
    (await import('./backends/singularity/transport.js')).singularityBackend as BackendDefinition<unknown>,
  modal: async () => (await import('./backends/modal/transport.js')).modalBackend as BackendDefinition<unknown>,
  daytona: async () => (await import('./backends/daytona/transport.js')).daytonaBackend as BackendDefinition<unknown>,
  vercel_sandbox: async () =>
    (await import('./backends/vercel/transport.js')).vercelBackend as BackendDefinition<unknown>,
};

export function builtinBackendNames(): string[] {
  return Object.keys(BUILTIN);
}

/** A plugin's backend: its settings are whatever `terminal.<name>` holds. */
function pluginBackend(name: string): BackendDefinition<Record<string, unknown>> | undefined {
  const provider = environmentProvider(name);
  if (!provider) return undefined;
  return {
    name,
    description: `from plugin ${provider.source}`,
    settings: z.record(z.string(), z.unknown()).default({}),
    create: (settings, ctx) => {
      const t = provider.factory({ taskId: ctx.taskId, cwd: ctx.hostCwd, settings }) as Partial<Transport> | undefined;
      if (!t || typeof t.spawn !== 'function' || typeof t.start !== 'function') {
        throw new TetherError(
          'Config.Invalid',
          `plugin ${provider.source}: backend '${name}' factory did not return a Transport (start, spawn, alive, close)`,
          false,
        );
      }
      return t as Transport;
    },
  };
}

async function findBackend(name: string): Promise<BackendDefinition<unknown> | undefined> {
  const load = Object.hasOwn(BUILTIN, name) ? BUILTIN[name] : undefined;
  return load ? load() : (pluginBackend(name) as BackendDefinition<unknown> | undefined);
}

/** The settings schema of backend `name` (`terminal.<name>`), for `tether config check`; undefined: no such backend. */
export async function backendSettingsSchema(name: string): Promise<z.ZodType | undefined> {
  return (await findBackend(name))?.settings;
}

interface ResolvedBackend {
  definition: BackendDefinition<unknown>;
  settings: unknown;
}

/** The backend `name` (default: terminal.backend) with its checked settings; a wrong setting names itself. */
export async function resolveBackend(terminal: TerminalConfig, name = terminal.backend): Promise<ResolvedBackend> {
  const definition = await findBackend(name);
  if (!definition) {
    const known = builtinBackendNames().join(', ');
    throw new TetherError(
      'Config.Invalid',
      `terminal.backend: unknown backend '${name}' (built in: ${known}; plugins may add more)`,
      false,
    );
  }
  const raw = (terminal as Record<string, unknown>)[name] ?? {};
  const parsed = definition.settings.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map(
      (i) => `terminal.${name}${i.path.length ? `.${i.path.join('.')}` : ''}: ${i.message}`,
    );
    throw new TetherError('Config.Invalid', issues.join('; '), false);
  }
  return { definition, settings: parsed.data };
}

/**
 * Every key of `terminal` is a setting of its own or the section of a backend, and every section present is
 * checked, selected or not: a misspelt key or a wrong value in a section kept for later is named now.
 */
export async function checkTerminalSections(terminal: TerminalConfig): Promise<void> {
  const problems: string[] = [];
  for (const key of Object.keys(terminal)) {
    if (TERMINAL_KEYS.includes(key) || key === terminal.backend) continue;
    if (!(await findBackend(key))) {
      problems.push(
        `terminal: Unrecognized key "${key}" (terminal's settings: ${TERMINAL_KEYS.join(', ')}; backend sections: ${builtinBackendNames().join(', ')} or a plugin's backend)`,
      );
      continue;
    }
    try {
      await resolveBackend(terminal, key);
    } catch (err) {
      problems.push((err as Error).message);
    }
  }
  if (problems.length > 0) throw new TetherError('Config.Invalid', problems.join('; '), false);
}
