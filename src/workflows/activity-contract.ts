// The activities the agent workflow calls, as types only; implemented in src/activities. Workflow-safe (types only).
import type { ChatMessage, ModelReply, ToolCatalog } from './types.js';
import type { ToolDefinition } from '../registry/types.js';

export interface ListToolsInput {
  enabledToolsets?: string[];
  disabledToolsets?: string[];
}

export interface CallModelInput {
  model: string;
  messages: ChatMessage[];
  tools: ToolDefinition[];
}

export interface RunToolInput {
  name: string;
  args: string;
  callId: string;
  taskId: string;
  userTask?: string;
  cwd: string;
}

export interface RunToolOutput {
  result: string;
  status: 'ok' | 'blocked' | 'approval_required';
}

export interface AgentActivities {
  listTools(input: ListToolsInput): Promise<ToolCatalog>;
  callModel(input: CallModelInput): Promise<ModelReply>;
  runTool(input: RunToolInput): Promise<RunToolOutput>;
}
