// Whether a call of an MCP server's tool asks a person first: on a server not marked trusted, every tool that does
// not say it only reads (`readOnlyHint: true`) asks, like a dangerous command, showing the server, the tool, its
// arguments whole and its annotations. The server's word is all tether has: what it does not claim, it is not given.
// Worker-only.
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { rule } from '../common/rules.js';
import type { CallSubject } from '../detector/engine/subject.js';
import type { McpServerConfig } from '../config/config.js';

/** `trust: trusted` (or Hermes's `full`): its tools run as they are; anything else, the default included, asks. */
export function trustedServer(cfg: McpServerConfig): boolean {
  return cfg.trust === 'trusted' || cfg.trust === 'full';
}

/** The tool only reads, by its own annotation (exactly `true`: a missing or odd value fails closed). */
export function readOnlyTool(tool: Tool): boolean {
  return tool.annotations?.readOnlyHint === true;
}

/** The gate of one MCP tool, or undefined when its calls run without asking (trusted server, read-only tool). */
export function mcpToolGate(
  server: string,
  cfg: McpServerConfig,
  tool: Tool,
  registered: string,
): ((args: Record<string, unknown>) => CallSubject) | undefined {
  if (trustedServer(cfg) || readOnlyTool(tool)) return undefined;
  const annotations = tool.annotations ? JSON.stringify(tool.annotations) : 'none';
  const finding = {
    rule: 'untrusted-mcp-tool',
    tier: rule('untrusted-mcp-tool').tier,
    description: `MCP server '${server}' is not marked trusted (mcp_servers.${server}.trust), and its tool '${tool.name}' does not say it only reads (annotations: ${annotations})`,
  };
  return (args) => {
    const json = JSON.stringify(args, null, 2);
    return {
      text: `${registered} ${JSON.stringify(args)}`,
      shown: `${registered}: tool '${tool.name}' of MCP server '${server}' (not trusted)\narguments: ${json}\nannotations: ${annotations}`,
      findings: [finding],
    };
  };
}
