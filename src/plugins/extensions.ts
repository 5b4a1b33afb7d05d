// Everything beyond the built-in tools, loaded at worker start (and by CLI commands that list tools): plugins, then MCP servers. Worker-only.
import { join } from 'node:path';
import type { TetherConfig } from '../config/config.js';
import { tetherHome } from '../config/home.js';
import type { Logger } from '../logging/logger.js';
import { McpManager, type McpServerSummary } from '../mcp/manager.js';
import type { Hooks } from '../registry/hooks.js';
import type { ToolRegistry } from '../registry/registry.js';
import { loadPlugins, type PluginLoadResult } from './loader.js';

export interface Extensions {
  plugins: PluginLoadResult;
  mcp: McpManager;
  mcpServers: McpServerSummary[];
  close(): Promise<void>;
}

export async function loadExtensions(deps: {
  config: TetherConfig;
  registry: ToolRegistry;
  hooks: Hooks;
  log: Logger;
  projectRoot?: string;
}): Promise<Extensions> {
  const projectRoot = deps.projectRoot ?? process.cwd();
  const plugins = await loadPlugins(
    {
      userDir: join(tetherHome(), 'plugins'),
      projectDir: join(projectRoot, '.tether', 'plugins'),
      packages: deps.config.plugins,
      projectRoot,
    },
    deps,
  );
  const mcp = new McpManager(deps.registry, deps.log);
  const mcpServers = await mcp.load(deps.config.mcp_servers);
  return { plugins, mcp, mcpServers, close: () => mcp.closeAll() };
}
