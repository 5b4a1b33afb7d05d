// Hooks around every tool call (pre_tool_call, post_tool_call, transform_tool_result), run in registration order. Worker-only.

export interface ToolCallInfo {
  name: string;
  /** Parsed arguments, or null when the model's arguments were not a JSON object. */
  args: Record<string, unknown> | null;
  taskId: string;
  /** The run's task text; undefined in a run started from messages, or when the worker could not have it (logged). */
  userTask?: string;
}

/** What a pre_tool_call hook may decide; returning nothing lets the call go on unchanged. */
type PreToolDecision =
  | { action: 'block'; message: string }
  | { action: 'modify'; args: Record<string, unknown> }
  | { action: 'require_approval'; reason: string }
  | undefined
  | void;

type PreToolCallHook = (call: ToolCallInfo) => PreToolDecision | Promise<PreToolDecision>;
type PostToolCallHook = (call: ToolCallInfo & { result: string }) => void | Promise<void>;
/** Returns a replacement result, or undefined to keep it. */
type TransformResultHook = (
  call: ToolCallInfo & { result: string },
) => string | undefined | Promise<string | undefined>;

export interface HookSet {
  pre_tool_call: { source: string; fn: PreToolCallHook }[];
  post_tool_call: { source: string; fn: PostToolCallHook }[];
  transform_tool_result: { source: string; fn: TransformResultHook }[];
}

export type HookName = keyof HookSet;

export class Hooks {
  readonly set: HookSet = { pre_tool_call: [], post_tool_call: [], transform_tool_result: [] };

  /** `source` names who added the hook (a plugin), for log lines when it throws. */
  add<K extends HookName>(name: K, fn: HookSet[K][number]['fn'], source = 'unknown'): void {
    (this.set[name] as { source: string; fn: unknown }[]).push({ source, fn });
  }

  /** Removes every hook a source added (a plugin that failed half-way through loading). */
  removeSource(source: string): void {
    for (const list of Object.values(this.set) as { source: string }[][]) {
      for (let i = list.length - 1; i >= 0; i -= 1) if (list[i]!.source === source) list.splice(i, 1);
    }
  }

  clear(): void {
    this.set.pre_tool_call.length = 0;
    this.set.post_tool_call.length = 0;
    this.set.transform_tool_result.length = 0;
  }
}
