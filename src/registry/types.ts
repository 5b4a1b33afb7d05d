// Types of the tool registry: what a tool declares and what its handler receives. Worker-only (types only).
import type { CallSubject, GateContext } from '../detector/engine/subject.js';
import type { z } from 'zod';
import type { JsonSchema, SideEffects, ToolDefinition } from '../common/tool-definition.js';

/** Everything a handler may know about the call it serves. */
export interface ToolContext {
  /** Task (run) the call belongs to; environments and working directories are keyed by it. */
  taskId: string;
  /** Working directory of the task; relative paths given to tools resolve against it. */
  cwd: string;
  /**
   * The user's task text, for tools that want it (for example to summarise): given to tools registered with
   * `readsUserTask` (plugin tools are by default); others get undefined, so their calls never look it up.
   */
  userTask?: string;
  /** Whether file tools may touch paths outside `cwd` (config `files.allow_outside_cwd`). */
  allowOutsideCwd?: boolean;
  /** Aborted when the call is cancelled (run cancelled, timeout). */
  signal?: AbortSignal;
  /** The terminal backend of this run, when it overrides terminal.backend of the configuration. */
  backend?: string;
  /** The task had a terminal environment before this call (on this or another worker); a missing one was lost. */
  environmentExpected?: boolean;
  /** Reports progress (such as the output so far); it survives a crash of the worker in the activity's heartbeat. */
  progress?: (details: { output_tail?: string }) => void;
}

/** A handler gets arguments already validated against its schema; it returns a JSON string. */
type ToolHandler<A = Record<string, unknown>> = (args: A, ctx: ToolContext) => string | Promise<string>;

/**
 * Lets a tool adapt its definition to the final list of tools the model will see
 * (for example `execute_code` lists only the tools that passed filtering).
 */
export type SchemaPatch = (definition: ToolDefinition, finalToolNames: ReadonlySet<string>) => ToolDefinition;

export interface RegisterOptions<S extends z.ZodObject = z.ZodObject> {
  name: string;
  toolset: string;
  description: string;
  /** A Zod v4 object (preferred) or a JSON schema of type "object". */
  schema: S | JsonSchema;
  /** Absent only for agent-loop tools, which the workflow handles itself. */
  handler?: ToolHandler<z.infer<S>>;
  /** Availability check; false or a throw hides the tool. Share one function between tools to run it once. */
  checkFn?: () => boolean;
  /** Environment variables that must be set (non-empty) for the tool to be available. */
  requiresEnv?: readonly string[];
  /** The handler returns a promise; informational, both kinds are awaited. */
  isAsync?: boolean;
  emoji?: string;
  /** Safe to run concurrently with other parallel-safe calls. Default false. */
  parallelSafe?: boolean;
  /** Default 'changes-world': unknown tools are treated as the most dangerous kind. */
  sideEffects?: SideEffects;
  /** Results longer than this many characters are cut (head and tail kept). */
  maxResultChars?: number;
  /** Upper bound of one call, used by the agent loop for the activity timeout. */
  timeoutSeconds?: number;
  /** Name of the argument holding a file path, for overlap checks between file tools. */
  pathArg?: string;
  /** Name of the argument holding a shell command: the agent loop checks it for approval before the call runs. */
  commandArg?: string;
  /** Name of the argument giving that command's working directory (judged there, not in the run's cwd). */
  cwdArg?: string;
  /** What a call would run (a command, its stdin, a program): the approval gate judges it before the call runs. */
  gate?: (
    args: Record<string, unknown>,
    ctx: GateContext,
  ) => CallSubject | undefined | Promise<CallSubject | undefined>;
  /** Handled by the agent loop (todo, memory, ...); dispatch refuses it with a clear error. */
  agentLoop?: boolean;
  /** The handler reads `ctx.userTask`: the worker then looks the run's task text up for each call. Default false. */
  readsUserTask?: boolean;
  /** Runs in the task's terminal environment: the agent loop sends all such calls of a task to the worker holding it. */
  environment?: boolean;
  schemaPatch?: SchemaPatch;
}

/** Validates parsed arguments; returns the value to pass to the handler or an error message. */
export type ArgsValidator = (
  args: unknown,
) => { ok: true; value: Record<string, unknown> } | { ok: false; error: string };

export interface ToolEntry {
  readonly name: string;
  readonly toolset: string;
  readonly description: string;
  readonly parameters: JsonSchema;
  readonly validate: ArgsValidator;
  readonly handler?: ToolHandler;
  readonly checkFn?: () => boolean;
  readonly requiresEnv: readonly string[];
  readonly isAsync: boolean;
  readonly emoji: string;
  readonly parallelSafe: boolean;
  readonly sideEffects: SideEffects;
  readonly maxResultChars: number;
  readonly timeoutSeconds: number;
  readonly pathArg?: string;
  readonly commandArg?: string;
  readonly cwdArg?: string;
  readonly gate?: (
    args: Record<string, unknown>,
    ctx: GateContext,
  ) => CallSubject | undefined | Promise<CallSubject | undefined>;
  readonly agentLoop: boolean;
  readonly readsUserTask: boolean;
  readonly environment: boolean;
  readonly schemaPatch?: SchemaPatch;
}

/** Why a tool is unavailable, or null when it is available. */
export type Availability = { available: true } | { available: false; reason: string };
