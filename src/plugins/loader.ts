// Loads plugins from TETHER_HOME/plugins, the project's .tether/plugins (as trusted, from tether's own copy) and
// npm packages named in config (installed in TETHER_HOME). Worker-only.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { TetherConfig } from '../config/config.js';
import { registerEnvironmentProvider } from '../environments/providers.js';
import type { Logger } from '../logging/logger.js';
import { describeError } from '../common/errors.js';
import type { Hooks, HookName } from '../registry/hooks.js';
import type { ToolRegistry } from '../registry/registry.js';
import { registerToolset } from '../toolsets/resolve.js';
import type { PluginContext } from './types.js';
import { readTrust, trustedCopy, untrusted } from './trust.js';

export interface PluginSources {
  /** TETHER_HOME/plugins */
  userDir: string;
  /** <project>/.tether/plugins: loaded from the copy `tether plugins trust` made of it, while it is unchanged. */
  projectDir: string;
  /** npm package names, resolved from `packageRoot`'s node_modules. */
  packages: readonly string[];
  /** Where packages are installed: TETHER_HOME (no run can write there; a project's node_modules it can). */
  packageRoot: string;
  /** The project, to say so when a package is installed there instead. */
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

/**
 * Packages resolve from TETHER_HOME's node_modules. One installed only in the project is refused with the way to
 * install it: its code, and its dependencies beside it, are files a run can write.
 */
function fromPackages(names: readonly string[], root: string, projectRoot: string): Candidate[] {
  const require = createRequire(join(root, 'package.json'));
  const inProject = createRequire(join(projectRoot, 'package.json'));
  return names.map((name) => ({
    name: `npm:${name}`,
    load: () => {
      let entry: string | undefined;
      let missing: unknown;
      try {
        entry = require.resolve(name);
      } catch (err) {
        missing = err;
      }
      // Node looks in every folder above TETHER_HOME too (a home that is a project's): only TETHER_HOME's own counts.
      if (entry !== undefined && !entry.startsWith(join(root, 'node_modules') + sep)) {
        missing = new Error(`${name} is not installed in ${root} (found at ${entry})`);
        entry = undefined;
      }
      if (entry === undefined) {
        try {
          inProject.resolve(name);
        } catch {
          return Promise.reject(missing instanceof Error ? missing : new Error(String(missing)));
        }
        return Promise.reject(
          new Error(
            `${name} is installed in the project, where a run can write: install it into TETHER_HOME instead (npm install --prefix ${root} ${name})`,
          ),
        );
      }
      return import(pathToFileURL(entry).href);
    },
  }));
}

/** Each of the project folder's plugins, failing with `why` (not trusted as it is now). */
function refusedDir(dir: string, why: string): Candidate[] {
  return fromDir(dir, 'project').map((c) => ({
    name: c.name,
    load: () => Promise.reject(new Error(`not loaded: ${why}`)),
  }));
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
  // TETHER_HOME's plugins and packages are the person's (no command can write there). The project's folder is
  // where a run can write: its plugins load only while it is as a person trusted it, and then from tether's copy of
  // it in TETHER_HOME, so that what they import resolves there too, not in the project.
  const why = existsSync(sources.projectDir) ? untrusted(sources.projectDir, readTrust()) : undefined;
  const candidates = [
    ...fromDir(sources.userDir, 'user'),
    ...(why ? refusedDir(sources.projectDir, why) : fromDir(trustedCopy(sources.projectDir), 'project')),
    ...fromPackages(sources.packages, sources.packageRoot, sources.projectRoot),
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
