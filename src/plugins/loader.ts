// Loads plugins from TETHER_HOME/plugins, the project's .tether/plugins and npm packages named in config. Worker-only.
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { TetherConfig } from '../config/config.js';
import { registerEnvironmentProvider } from '../environments/providers.js';
import type { Logger } from '../logging/logger.js';
import { describeError } from '../common/errors.js';
import type { Hooks, HookName } from '../registry/hooks.js';
import type { ToolRegistry } from '../registry/registry.js';
import { registerToolset } from '../toolsets/resolve.js';
import type { PluginContext } from './types.js';
import { readTrust, untrusted, type TrustRecord } from './trust.js';

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

/** A candidate that loads only while `trustPath`'s files are what a person trusted (trust.ts). */
function trusted(c: Candidate, trustPath: () => string, record: TrustRecord): Candidate {
  return {
    name: c.name,
    load: () => {
      const why = untrusted(trustPath(), record);
      return why ? Promise.reject(new Error(`not loaded: ${why}`)) : c.load();
    },
  };
}

/** The folder of an installed package (its package.json's), for trust: the whole package is what runs. */
function packageDir(entry: string, name: string): string {
  for (let dir = dirname(entry); dir !== dirname(dir); dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown };
      if (pkg.name === name) return realpathSync(dir);
    } catch {
      // no package.json here: go up
    }
  }
  return dirname(entry);
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

/** Where each project plugin source is, for `tether plugins trust`: the project folder and each package's folder. */
export function projectPluginPaths(sources: PluginSources): string[] {
  const require = createRequire(join(sources.projectRoot, 'package.json'));
  const paths = existsSync(sources.projectDir) ? [sources.projectDir] : [];
  for (const name of sources.packages) {
    try {
      paths.push(packageDir(require.resolve(name), name));
    } catch {
      // not installed: nothing to trust yet
    }
  }
  return paths;
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
  // TETHER_HOME's plugins are the person's (no command can write there); the project's and packages resolved from
  // its node_modules load only as trusted (a run can write the project).
  const record = readTrust();
  const require = createRequire(join(sources.projectRoot, 'package.json'));
  const candidates = [
    ...fromDir(sources.userDir, 'user'),
    ...fromDir(sources.projectDir, 'project').map((c) => trusted(c, () => sources.projectDir, record)),
    ...fromPackages(sources.packages, sources.projectRoot).map((c) =>
      trusted(c, () => packageDir(require.resolve(c.name.slice('npm:'.length)), c.name.slice('npm:'.length)), record),
    ),
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
