// MCP servers an editor passes in session/new: connected by this `tether acp` process and registered like
// config.yaml's, so the session's runs can call them. Worker-only.
import type { McpServer } from '@agentclientprotocol/sdk';
import { McpServerSchema, type McpServerConfig } from '../config/config.js';
import type { Logger } from '../logging/logger.js';
import { McpManager } from '../mcp/manager.js';
import { registry } from '../registry/index.js';
import { mcpToolsetName } from '../toolsets/resolve.js';

/** An editor's server as tether's configuration shape; the name keeps what config.yaml allows. */
function editorServerConfig(server: McpServer): { name: string; config: McpServerConfig } {
  const name = server.name.replace(/[^a-zA-Z0-9_-]/g, '_') || 'editor';
  const raw =
    'command' in server
      ? {
          command: server.command,
          args: server.args,
          env: Object.fromEntries(server.env.map((e) => [e.name, e.value])),
        }
      : {
          url: server.url,
          headers: Object.fromEntries(server.headers.map((h) => [h.name, h.value])),
          transport: server.type,
        };
  return { name, config: McpServerSchema.parse(raw) };
}

/** Editor servers connected so far in this process, by name: a later session naming the same one reuses it. */
export class EditorMcpServers {
  private readonly manager: McpManager;
  private readonly loaded = new Map<string, string>();

  constructor(private readonly log: Logger) {
    this.manager = new McpManager(registry, log);
  }

  /** Connects what is new and returns the toolsets of the session's servers that connected. */
  async connect(servers: readonly McpServer[]): Promise<string[]> {
    const fresh: Record<string, McpServerConfig> = {};
    const names: string[] = [];
    for (const s of servers) {
      const { name, config } = editorServerConfig(s);
      const key = JSON.stringify(config);
      const known = this.loaded.get(name);
      if (known !== undefined && known !== key)
        this.log.warn(
          { server: name },
          `MCP server '${name}' is connected already with other settings: the first one stays`,
        );
      if (known === undefined) {
        this.loaded.set(name, key);
        fresh[name] = config;
      }
      names.push(name);
    }
    if (Object.keys(fresh).length > 0) await this.manager.load(fresh);
    const status = new Map(this.manager.summaries().map((s) => [s.name, s]));
    for (const n of Object.keys(fresh)) {
      const s = status.get(n);
      if (s?.status === 'failed')
        this.log.warn({ server: n, error: s.error }, `editor MCP server '${n}' failed to start and was skipped`);
    }
    return names.filter((n) => status.get(n)?.status === 'connected').map(mcpToolsetName);
  }

  close(): Promise<void> {
    return this.manager.closeAll();
  }
}
