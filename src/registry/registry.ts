// ToolRegistry: one map of tools keyed by name; registration, availability and the single dispatch path. Worker-only.
import type { z } from 'zod';
import { describeError, isRetryable, isTetherError, toolError } from '../common/errors.js';
import { countRefusal } from '../observability/metrics.js';
import { capResult, normalizeResult } from './result.js';
import { toolCall, type ToolCall } from './tool-call.js';
import { redactToolOutput } from '../observability/redact-output.js';
import { compileParameters } from './schema.js';
import type { Logger } from '../logging/logger.js';
import { lazyLogger } from '../logging/logger.js';
import type { ToolDefinition } from '../common/tool-definition.js';
import type { Availability, RegisterOptions, ToolContext, ToolEntry } from './types.js';

export const DEFAULT_MAX_RESULT_CHARS = 100_000;
const DEFAULT_TIMEOUT_SECONDS = 300;

export class ToolRegistry {
  private readonly tools = new Map<string, ToolEntry>();

  constructor(private readonly log: Logger = lazyLogger) {}

  /** Creates (or, for a repeated name, replaces with a warning) the entry of one tool. */
  register<S extends z.ZodObject>(opts: RegisterOptions<S>): ToolEntry {
    const name = typeof opts?.name === 'string' ? opts.name : '';
    if (!/^[a-zA-Z0-9_-]{1,64}$/.test(name)) {
      throw new TypeError(`Tool name ${JSON.stringify(opts?.name)} is invalid: use 1-64 letters, digits, '_' or '-'`);
    }
    if (typeof opts.toolset !== 'string' || opts.toolset === '') {
      throw new TypeError(`Tool '${name}': toolset must be a non-empty string`);
    }
    if (!opts.handler && !opts.agentLoop) {
      throw new TypeError(`Tool '${name}': a handler is required (only agent-loop tools may omit it)`);
    }
    const { parameters, validate } = compileParameters(name, opts.schema);
    const entry: ToolEntry = {
      name,
      toolset: opts.toolset,
      description: opts.description,
      parameters,
      validate,
      handler: opts.handler as ToolEntry['handler'],
      checkFn: opts.checkFn,
      requiresEnv: opts.requiresEnv ?? [],
      isAsync: opts.isAsync ?? false,
      emoji: opts.emoji ?? '🔧',
      parallelSafe: opts.parallelSafe ?? false,
      sideEffects: opts.sideEffects ?? 'changes-world',
      maxResultChars: opts.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS,
      timeoutSeconds: opts.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS,
      pathArg: opts.pathArg,
      commandArg: opts.commandArg,
      cwdArg: opts.cwdArg,
      gate: opts.gate,
      agentLoop: opts.agentLoop ?? false,
      readsUserTask: opts.readsUserTask ?? false,
      environment: opts.environment ?? false,
      schemaPatch: opts.schemaPatch,
    };
    const previous = this.tools.get(name);
    if (previous && previous.toolset !== entry.toolset) {
      this.log.warn(
        { tool: name, previousToolset: previous.toolset, toolset: entry.toolset },
        `Tool '${name}' registered again: toolset '${entry.toolset}' replaces toolset '${previous.toolset}'`,
      );
    }
    this.tools.set(name, entry);
    return entry;
  }

  unregister(name: string): boolean {
    return this.tools.delete(name);
  }

  get(name: string): ToolEntry | undefined {
    return this.tools.get(name);
  }

  all(): ToolEntry[] {
    return [...this.tools.values()];
  }

  /** Base toolsets, as the registrations define them: toolset name → tool names. */
  toolsets(): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const t of this.tools.values()) {
      const list = out.get(t.toolset) ?? [];
      list.push(t.name);
      out.set(t.toolset, list);
    }
    return out;
  }

  /** Availability of one tool; `checks` memoises check functions shared between tools within one call. */
  availability(entry: ToolEntry, checks = new Map<() => boolean, Availability>()): Availability {
    const missing = entry.requiresEnv.filter((v) => !process.env[v]);
    if (missing.length > 0) {
      return { available: false, reason: `missing environment variable ${missing.join(', ')}` };
    }
    const fn = entry.checkFn;
    if (!fn) return { available: true };
    let verdict = checks.get(fn);
    if (!verdict) {
      try {
        verdict = fn() === true ? { available: true } : { available: false, reason: 'availability check failed' };
      } catch (err) {
        const { type, message } = describeError(err);
        verdict = { available: false, reason: `availability check threw ${type}: ${message}` };
      }
      checks.set(fn, verdict);
    }
    return verdict;
  }

  isToolsetAvailable(toolset: string): boolean {
    const checks = new Map<() => boolean, Availability>();
    const members = this.all().filter((t) => t.toolset === toolset);
    return members.length > 0 && members.some((t) => this.availability(t, checks).available);
  }

  /**
   * OpenAI definitions of the named tools that are known and available, in the order given. Each distinct
   * check function runs once per call; schema patches then see the final list.
   */
  getDefinitions(names: Iterable<string>): ToolDefinition[] {
    const checks = new Map<() => boolean, Availability>();
    const chosen: ToolEntry[] = [];
    const seen = new Set<string>();
    for (const name of names) {
      const entry = this.tools.get(name);
      if (!entry || seen.has(name)) continue;
      seen.add(name);
      if (this.availability(entry, checks).available) chosen.push(entry);
    }
    const finalNames: ReadonlySet<string> = new Set(chosen.map((t) => t.name));
    return chosen.map((t) => {
      const definition: ToolDefinition = {
        type: 'function',
        function: { name: t.name, description: t.description, parameters: structuredClone(t.parameters) },
      };
      return t.schemaPatch ? t.schemaPatch(definition, finalNames) : definition;
    });
  }

  /**
   * The one path from a model's tool call to a handler. Always resolves to a JSON string; the only thing it
   * lets through is a retryable infrastructure failure (see TetherError), which the activity must surface.
   */
  async dispatch(name: string, rawArgs: unknown, ctx: ToolContext): Promise<string> {
    const call = toolCall(this, name, rawArgs);
    return capResult(name, await this.run(call, ctx), call.entry?.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS);
  }

  /**
   * A call whose arguments were checked already (src/registry/tool-call.ts): the handler's result as JSON, redacted,
   * not yet capped (the caller caps it once, where it leaves: src/activities/tools.ts, or dispatch above).
   */
  async run(call: ToolCall, ctx: ToolContext): Promise<string> {
    if (!call.checked.ok || !call.entry?.handler) return toolError(call.checked.ok ? 'no handler' : call.checked.error);
    let result: unknown;
    try {
      result = await call.entry.handler(call.checked.value, ctx);
    } catch (err) {
      if (isRetryable(err)) throw err;
      if (isTetherError(err, 'Path.OutsideWorkdir')) countRefusal('sandbox');
      const { type, message } = describeError(err);
      return redactToolOutput(toolError(`Tool execution failed: ${type}: ${message}`));
    }
    // Every tool's output gets the same redaction here, before it reaches a hook, the model or history.
    return normalizeResult(call.name, typeof result === 'string' ? redactToolOutput(result) : result);
  }
}
