// What a plugin sees: the registration API of `register(ctx)`. Worker-only (types).
import type { TetherConfig } from '../config/config.js';
import type { EnvironmentFactory } from '../environments/providers.js';
import type { Logger } from '../logging/logger.js';
import type { HookSet, HookName } from '../registry/hooks.js';
import type { RegisterOptions, ToolEntry } from '../registry/types.js';
import type { ToolsetDef } from '../toolsets/catalog.js';

export interface PluginContext {
  /** The plugin's name (its file or package name). */
  readonly name: string;
  readonly config: TetherConfig;
  readonly log: Logger;
  /** Its handler gets the run's task as `ctx.userTask` unless it passes `readsUserTask: false` (no lookup then). */
  registerTool(opts: RegisterOptions): ToolEntry;
  registerToolset(name: string, def: Omit<ToolsetDef, 'kind'>): void;
  /** A terminal backend: `terminal.backend: <name>` selects it; the factory returns a Transport (src/environments/types.ts). */
  registerEnvironment(name: string, factory: EnvironmentFactory): void;
  /** pre_tool_call (block, change arguments, require approval), post_tool_call (observe), transform_tool_result. */
  on<K extends HookName>(hook: K, fn: HookSet[K][number]['fn']): void;
}

export interface TetherPlugin {
  register(ctx: PluginContext): void | Promise<void>;
}
