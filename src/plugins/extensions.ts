// Everything beyond the built-in tools, loaded at worker start (and by CLI commands that list tools): plugins, then MCP servers. Worker-only.
import { join } from 'node:path';
import type { TetherConfig } from '../config/config.js';
import { tetherHome } from '../config/home.js';
import type { Logger } from '../logging/logger.js';
import { McpManager, type McpServerSummary } from '../mcp/manager.js';
import type { Hooks } from '../registry/hooks.js';
import type { ToolRegistry } from '../registry/registry.js';
import { loadPlugins, type PluginLoadResult, type PluginSources } from './loader.js';

export interface Extensions {
  plugins: PluginLoadResult;
  mcp: McpManager;
  mcpServers: McpServerSummary[];
  close(): Promise<void>;
}

/** Where plugins come from: TETHER_HOME/plugins, the project's .tether/plugins, the packages config names (in TETHER_HOME). */
export function pluginSources(config: TetherConfig, projectRoot = process.cwd()): PluginSources {
  return {
    userDir: join(tetherHome(), 'plugins'),
    projectDir: join(projectRoot, '.tether', 'plugins'),
    packages: config.plugins,
    packageRoot: tetherHome(),
    projectRoot,
  };
}

export async function loadExtensions(deps: {
  config: TetherConfig;
  registry: ToolRegistry;
  hooks: Hooks;
  log: Logger;
  projectRoot?: string;
}): Promise<Extensions> {
  const plugins = await loadPlugins(pluginSources(deps.config, deps.projectRoot), deps);
  const mcp = new McpManager(deps.registry, deps.log);
  const mcpServers = await mcp.load(deps.config.mcp_servers);
  return { plugins, mcp, mcpServers, close: () => mcp.closeAll() };
}
