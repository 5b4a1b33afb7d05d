// Loads plugins from TETHER_HOME/plugins, the project's .tether/plugins and npm packages named in config. Worker-only.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { TetherConfig } from '../config/config.js';
import { registerEnvironmentProvider } from '../environments/providers.js';
import type { Logger } from '../logging/logger.js';
import { describeError } from '../common/errors.js';
import type { Hooks, HookName } from '../registry/hooks.js';
import type { ToolRegistry } from '../registry/registry.js';
import { registerToolset } from '../toolsets/resolve.js';
import type { PluginContext } from './types.js';

export interface PluginSources {
  /** TETHER_HOME/plugins */
  userDir: string;
  /** <project>/.tether/plugins */
  projectDir: string;
  /** npm package names, resolved from `projectRoot`'s node_modules. */
  packages: readonly string[];
  projectRoot: string;
}

export interface PluginLoadResult {
  loaded: string[];
  failed: { plugin: string; error: string }[];
}

interface Candidate {
  name: string;
  load: () => Promise<unknown>;
}

/** Plugin files (`*.js`, `*.mjs`) and folders (with an index.js or a package.json) in a directory, by name. */
function fromDir(dir: string, origin: string): Candidate[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .sort()
    .flatMap((entry): Candidate[] => {
      const path = join(dir, entry);
      let isDir: boolean;
      try {
        isDir = statSync(path).isDirectory();
      } catch (err) {
        return [{ name: `${origin}:${entry}`, load: () => Promise.reject(err) }]; // a dangling link: skipped like any failure
      }
      if (!isDir && !/\.(m?js)$/.test(entry)) return [];
      if (isDir && !existsSync(join(path, 'package.json')) && !existsSync(join(path, 'index.js'))) return [];
      // Resolved when loading, inside the plugin's own try: a folder with a broken package.json is skipped alone.
      const load = (): Promise<unknown> =>
        import(pathToFileURL(isDir ? createRequire(join(path, 'noop.js')).resolve(path) : path).href);
      return [{ name: `${origin}:${basename(entry).replace(/\.m?js$/, '')}`, load }];
    });
}

function fromPackages(names: readonly string[], root: string): Candidate[] {
  const require = createRequire(join(root, 'package.json'));
  return names.map((name) => ({ name: `npm:${name}`, load: () => import(pathToFileURL(require.resolve(name)).href) }));
}

function registerFunction(mod: unknown): ((ctx: PluginContext) => unknown) | undefined {
  const m = mod as { register?: unknown; default?: unknown };
  if (typeof m.register === 'function') return m.register as (ctx: PluginContext) => unknown;
  const d = m.default as { register?: unknown } | undefined;
  if (typeof d === 'function') return d as (ctx: PluginContext) => unknown;
  if (d && typeof d.register === 'function') return d.register.bind(d) as (ctx: PluginContext) => unknown;
  return undefined;
}

/** Loads in order: user folder, project folder, packages. A plugin that throws while loading is logged and skipped. */
export async function loadPlugins(
  sources: PluginSources,
  deps: { registry: ToolRegistry; hooks: Hooks; log: Logger; config: TetherConfig },
): Promise<PluginLoadResult> {
  const result: PluginLoadResult = { loaded: [], failed: [] };
  const candidates = [
    ...fromDir(sources.userDir, 'user'),
    ...fromDir(sources.projectDir, 'project'),
    ...fromPackages(sources.packages, sources.projectRoot),
  ];
  for (const c of candidates) {
    const tools: string[] = [];
    try {
      const register = registerFunction(await c.load());
      if (!register) throw new TypeError('the module exports no register(ctx) function');
      const ctx: PluginContext = {
        name: c.name,
        config: deps.config,
        log: deps.log,
        registerTool: (opts) => {
          // A plugin's handler may read ctx.userTask (it always could): it gets the task unless it says it does not.
          const entry = deps.registry.register({ readsUserTask: true, ...opts });
          tools.push(entry.name);
          return entry;
        },
        registerToolset: (name, def) => registerToolset(name, def),
        registerEnvironment: (name, factory) => registerEnvironmentProvider(name, factory, c.name),
        on: (hook: HookName, fn) => deps.hooks.add(hook, fn as never, c.name),
      };
      await register(ctx);
      result.loaded.push(c.name);
    } catch (err) {
      // Nothing of a plugin that failed stays half-registered.
      deps.hooks.removeSource(c.name);
      for (const t of tools) deps.registry.unregister(t);
      const { type, message } = describeError(err);
      deps.log.warn(
        { plugin: c.name, error: `${type}: ${message}` },
        `plugin '${c.name}' failed to load and was skipped`,
      );
      result.failed.push({ plugin: c.name, error: `${type}: ${message}` });
    }
  }
  return result;
}
