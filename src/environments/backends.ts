// The terminal backends by name: the built-in ones and those plugins registered; settings checked against each
// backend's schema. Worker-only.
import { z } from 'zod';
import type { TerminalConfig } from '../config/config.js';
import { TetherError } from '../registry/errors.js';
import type { BackendDefinition } from './backend-types.js';
import { localBackend } from './local-transport.js';
import { environmentProvider } from './providers.js';
import type { Transport } from './types.js';

/** Built-in backends. A backend is a Transport plus its settings; everything else is shared. */
const BUILTIN: BackendDefinition<never>[] = [localBackend as BackendDefinition<never>];

export function builtinBackends(): readonly BackendDefinition<never>[] {
  return BUILTIN;
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
        throw new TetherError('Config.Invalid', `plugin ${provider.source}: backend '${name}' factory did not return a Transport (start, spawn, alive, close)`, false);
      }
      return t as Transport;
    },
  };
}

export function findBackend(name: string): BackendDefinition<unknown> | undefined {
  return (BUILTIN.find((b) => b.name === name) as BackendDefinition<unknown> | undefined) ?? (pluginBackend(name) as BackendDefinition<unknown> | undefined);
}

export interface ResolvedBackend {
  definition: BackendDefinition<unknown>;
  settings: unknown;
}

/** The backend `name` (default: terminal.backend) with its checked settings; a wrong setting names itself. */
export function resolveBackend(terminal: TerminalConfig, name = terminal.backend): ResolvedBackend {
  const definition = findBackend(name);
  if (!definition) {
    const known = BUILTIN.map((b) => b.name).join(', ');
    throw new TetherError('Config.Invalid', `terminal.backend: unknown backend '${name}' (built in: ${known}; plugins may add more)`, false);
  }
  const raw = (terminal as Record<string, unknown>)[name] ?? {};
  const parsed = definition.settings.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `terminal.${name}${i.path.length ? `.${i.path.join('.')}` : ''}: ${i.message}`);
    throw new TetherError('Config.Invalid', issues.join('; '), false);
  }
  return { definition, settings: parsed.data };
}
