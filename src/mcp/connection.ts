// One MCP server connection: connect over stdio, streamable HTTP or SSE, list tools, call them, reconnect when dropped. Worker-only.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerConfig } from '../config/config.js';
import { makeDirs, tetherHome } from '../config/home.js';
import { baseEnvironment } from '../environments/command-env.js';

export type McpStatus = 'connected' | 'disconnected' | 'failed' | 'disabled';

function transportFor(cfg: McpServerConfig): Transport {
  if (cfg.command) {
    // The allowlist every command starts from and the server's own `env`: never the worker's secrets (model keys,
    // Temporal credentials, cloud and forge tokens).
    const env = { ...baseEnvironment(), ...cfg.env };
    // Started in TETHER_HOME unless the server's `cwd` says otherwise: from the project's directory, `npx -y NAME`
    // would run a NAME a run planted in the project's node_modules, outside every sandbox.
    const cwd = cfg.cwd ?? tetherHome();
    // A TETHER_HOME not made yet would fail the spawn as an obscure `spawn node ENOENT`.
    if (cfg.cwd === undefined) makeDirs(cwd);
    return new StdioClientTransport({ command: cfg.command, args: cfg.args, env, cwd, stderr: 'ignore' });
  }
  const url = new URL(cfg.url!);
  const requestInit = cfg.headers ? { headers: cfg.headers } : undefined;
  return cfg.transport === 'sse'
    ? new SSEClientTransport(url, { requestInit })
    : new StreamableHTTPClientTransport(url, { requestInit });
}

export class McpConnection {
  status: McpStatus;
  error?: string;
  tools: Tool[] = [];
  private client?: Client;
  private transport?: Transport;
  /** One connection attempt at a time: parallel calls after a drop share it. */
  private connecting?: Promise<void>;

  constructor(
    readonly name: string,
    readonly config: McpServerConfig,
  ) {
    this.status = config.enabled ? 'disconnected' : 'disabled';
  }

  private get timeoutMs(): number {
    return this.config.timeout * 1000;
  }

  /** The pid of a stdio server's process (tests kill it to check reconnection). */
  get pid(): number | null {
    return this.transport instanceof StdioClientTransport ? this.transport.pid : null;
  }

  async connect(): Promise<void> {
    await this.close();
    const client = new Client({ name: 'tether', version: '0.1.0' });
    const transport = transportFor(this.config);
    // A dropped connection (server exit, network) is noticed here and re-established on the next call.
    transport.onclose = () => {
      if (this.transport === transport) this.status = 'disconnected';
    };
    try {
      await client.connect(transport, { timeout: this.timeoutMs });
      this.client = client;
      this.transport = transport;
      this.status = 'connected';
      this.error = undefined;
    } catch (err) {
      this.status = 'failed';
      this.error = (err as Error).message;
      await transport.close().catch(() => undefined);
      throw err;
    }
  }

  async listTools(): Promise<Tool[]> {
    const client = await this.ready();
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : {}, { timeout: this.timeoutMs });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    this.tools = tools;
    return tools;
  }

  /** Calls a tool; the call is cancelled (the server is told) when it outlives the timeout or `signal` aborts. */
  async callTool(tool: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<CallToolResult> {
    const client = await this.ready();
    try {
      return (await client.callTool({ name: tool, arguments: args }, undefined, {
        timeout: this.timeoutMs,
        signal,
      })) as CallToolResult;
    } catch (err) {
      // An answer from the server (McpError: bad params, timeout) leaves the connection usable; anything else
      // (HTTP failure, lost session after a server restart) means the next call must connect again.
      if (!(err instanceof McpError)) this.status = 'disconnected';
      throw err;
    }
  }

  private async ready(): Promise<Client> {
    if (this.status === 'disabled') throw new Error(`MCP server '${this.name}' is disabled in config.yaml`);
    if (this.status !== 'connected' || !this.client) {
      this.connecting ??= this.connect().finally(() => {
        this.connecting = undefined;
      });
      await this.connecting;
    }
    return this.client!;
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.transport = undefined;
    if (this.status === 'connected') this.status = 'disconnected';
    await client?.close().catch(() => undefined);
  }
}
