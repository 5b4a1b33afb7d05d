// What the model and the agent loop see of a tool: its OpenAI function definition and side-effect class. Workflow-safe (types only).

/** What running a tool does to the world; decides retries and ordering in the agent loop. */
export type SideEffects = 'read-only' | 'idempotent' | 'changes-world';

/** A JSON schema object, as given by MCP servers or hand-written tools. */
export type JsonSchema = Record<string, unknown>;

/** The OpenAI function-calling definition of one tool. */
export interface ToolDefinition {
  type: 'function';
  function: { name: string; description: string; parameters: JsonSchema };
}
