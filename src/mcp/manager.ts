// Connects the configured MCP servers and registers their tools as mcp_<server>_<tool> in toolset mcp-<server>. Worker-only.
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerConfig } from '../config/config.js';
import type { Logger } from '../logging/logger.js';
import { describeError } from '../common/errors.js';
import type { ToolRegistry } from '../registry/registry.js';
import type { JsonSchema, SideEffects } from '../common/tool-definition.js';
import { mcpToolsetName } from '../toolsets/resolve.js';
import type { McpConnection, McpStatus } from './connection.js';
import { mcpResultToJson } from './result.js';
import { mcpToolGate } from './gate.js';

export interface McpServerSummary {
  name: string;
  status: McpStatus;
  tools: string[];
  error?: string;
}

function mcpToolName(server: string, tool: string): string {
  return `mcp_${server}_${tool}`.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64);
}

function selected(tool: string, cfg: McpServerConfig): boolean {
  if (cfg.include && !cfg.include.includes(tool)) return false;
  return !cfg.exclude?.includes(tool);
}

/** MCP tool annotations say what a tool does to the world; without them it is assumed to change it. */
function effects(tool: Tool): { sideEffects: SideEffects; parallelSafe: boolean } {
  if (tool.annotations?.readOnlyHint) return { sideEffects: 'read-only', parallelSafe: true };
  if (tool.annotations?.idempotentHint) return { sideEffects: 'idempotent', parallelSafe: false };
  return { sideEffects: 'changes-world', parallelSafe: false };
}

export class McpManager {
  readonly connections = new Map<string, McpConnection>();

  constructor(
    private readonly registry: ToolRegistry,
    private readonly log: Logger,
  ) {}

  /** Connects every enabled server at once; one that fails is logged and skipped, the rest load. */
  async load(servers: Record<string, McpServerConfig>): Promise<McpServerSummary[]> {
    await Promise.all(Object.entries(servers).map(([name, cfg]) => this.loadOne(name, cfg)));
    return this.summaries();
  }

  private async loadOne(name: string, cfg: McpServerConfig): Promise<void> {
    // The MCP SDK is loaded only when a server is configured: it would add a fifth of a second to every worker start.
    const { McpConnection } = await import('./connection.js');
    const conn = new McpConnection(name, cfg);
    this.connections.set(name, conn);
    if (!cfg.enabled) return;
    let tools: Tool[];
    try {
      tools = await conn.listTools();
    } catch (err) {
      conn.status = 'failed';
      conn.error = describeError(err).message;
      this.log.warn({ server: name, error: conn.error }, `MCP server '${name}' failed to start and was skipped`);
      return;
    }
    const taken = new Set<string>();
    for (const tool of tools.filter((t) => selected(t.name, cfg))) {
      const { $schema: _ignored, ...schema } = tool.inputSchema as JsonSchema;
      const registeredName = mcpToolName(name, tool.name);
      if (taken.has(registeredName)) {
        this.log.warn(
          { server: name, tool: tool.name },
          `MCP tool '${tool.name}' of '${name}' skipped: its name becomes ${registeredName}, like another tool's`,
        );
        continue;
      }
      taken.add(registeredName);
      try {
        this.registry.register({
          name: registeredName,
          toolset: mcpToolsetName(name),
          description: tool.description ?? tool.title ?? `${tool.name} (MCP server ${name})`,
          schema: { ...schema, type: 'object' },
          emoji: '🔌',
          isAsync: true,
          timeoutSeconds: cfg.timeout + 5,
          ...effects(tool),
          gate: mcpToolGate(name, cfg, tool, registeredName),
          handler: async (args, ctx) => mcpResultToJson(await conn.callTool(tool.name, args, ctx.signal)),
        });
      } catch (err) {
        this.log.warn(
          { server: name, tool: tool.name, error: describeError(err).message },
          `MCP tool '${tool.name}' of '${name}' skipped`,
        );
      }
    }
  }

  summaries(): McpServerSummary[] {
    return [...this.connections.values()].map((c) => ({
      name: c.name,
      status: c.status,
      tools: c.tools.filter((t) => selected(t.name, c.config)).map((t) => mcpToolName(c.name, t.name)),
      ...(c.error ? { error: c.error } : {}),
    }));
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.connections.values()].map((c) => c.close()));
  }
}
