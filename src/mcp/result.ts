// Turns an MCP tool result into the JSON string the model sees; isError results become {"error": ...}. Worker-only.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

function describeBlock(block: CallToolResult['content'][number]): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return `[${block.type}: ${block.mimeType}, ${Math.round((block.data.length * 3) / 4)} bytes]`;
    case 'resource':
      return 'text' in block.resource ? String(block.resource.text) : `[resource: ${block.resource.uri}]`;
    case 'resource_link':
      return `[resource link: ${block.uri}]`;
    default:
      return JSON.stringify(block);
  }
}

export function mcpResultToJson(result: CallToolResult): string {
  const text = (result.content ?? []).map(describeBlock).join('\n');
  if (result.isError) return JSON.stringify({ error: text || 'the MCP tool reported an error' });
  const out: Record<string, unknown> = { result: text };
  if (result.structuredContent !== undefined) out.structured = result.structuredContent;
  return JSON.stringify(out);
}
