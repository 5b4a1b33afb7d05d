// Tool activities: the tool catalog for the model, and one tool call through the registry's single path. Worker-only.
import { ApplicationFailure, CancelledFailure, Context } from '@temporalio/activity';
import type { TetherConfig } from '../config/config.js';
import type { Logger } from '../logging/logger.js';
import { TetherError } from '../common/errors.js';
import { runToolCall } from '../registry/handle-function-call.js';
import type { Hooks } from '../registry/hooks.js';
import type { ToolRegistry } from '../registry/registry.js';
import { toolCall, type ToolCall } from '../registry/tool-call.js';
import { getToolDefinitions, validateToolsets } from '../toolsets/resolve.js';
import type { ListToolsInput, RunToolInput, RunToolOutput } from '../common/activity-contract.js';
import type { ToolCatalog, ToolMeta } from '../common/types.js';
import type { AssessCallInput, CallAssessment } from '../common/approval-types.js';
import { detect } from '../detector/engine/detect.js';
import { loadBashParser } from '../detector/engine/parser.js';
import { lostWorker, withHeartbeat } from './heartbeat.js';
import { liveCall } from '../liveness/liveness.js';
import { environmentManager } from '../environments/current.js';
import { comparableDigests } from '../environments/judged-bytes.js';
import { withToolCall } from '../environments/tool-call-context.js';
import { listedDir, prefetchOf } from '../detector/engine/scripts.js';
import { releaseTask } from '../registry/task-cleanup.js';
import { readsTask } from './task-text.js';
import { observeTool } from '../observability/observe.js';
import { recordToolCall } from '../observability/metrics.js';

/** No single tool result may come near Temporal's payload limits: this is the cap before history. */
const HISTORY_RESULT_CHARS = 64_000;

export interface ToolActivityDeps {
  registry: ToolRegistry;
  hooks: Hooks;
  log: Logger;
  config: TetherConfig;
  /** Agent-loop tools the workflow handles itself; the others are not offered yet. */
  loopHandled?: ReadonlySet<string>;
  /** This worker's own task queue: environment tools' calls of a task are routed to it once it holds the environment. */
  workerQueue?: string;
  /** The run's task text by its digest (src/activities/task-text.ts); without it, calls named by digest get none. */
  taskText?: (ref: string) => Promise<string | undefined>;
}

/**
 * At most once: a world-changing call's first attempt was recorded by Temporal when it started. A second attempt
 * means the first one's worker was lost, so the call is not run again: the model is told, with the output the
 * first attempt reported in its last heartbeat.
 */
function interruptedAttempt(name: string, registry: ToolRegistry): string | undefined {
  const info = Context.current().info;
  if (info.attempt <= 1 || registry.get(name)?.sideEffects !== 'changes-world') return undefined;
  // Every earlier attempt reached this worker only after the server had given it up, and ran nothing.
  if (liveCall(info.base64TaskToken)?.earlierNeverRan) return undefined;
  const details = info.heartbeatDetails as { output_tail?: string } | undefined;
  return JSON.stringify({
    error: `Tool '${name}' was interrupted: the worker running it was lost. It changes the world, so it was not run again; it may have partly run. Check its effects before repeating it.`,
    interrupted: true,
    output_before_interruption: details?.output_tail ?? '',
  });
}

/**
 * The gate's check of one call (src/activities/gate.ts), and its second look at the files a verdict was reached on;
 * both read the call's envelope (its arguments parsed and checked once, src/registry/tool-call.ts).
 */
export interface Gate {
  judge(input: AssessCallInput, call?: ToolCall): Promise<CallAssessment>;
  /** Files of `bound` whose content changed since (read again now). */
  changedFiles(input: AssessCallInput, bound: Record<string, string>, call?: ToolCall): Promise<string[]>;
}

const checkInput = (input: RunToolInput): AssessCallInput => ({
  name: input.name,
  args: input.args,
  taskId: input.taskId,
  cwd: input.cwd,
  ...(input.backend !== undefined ? { backend: input.backend } : {}),
  ...(input.environmentExpected !== undefined ? { environmentExpected: input.environmentExpected } : {}),
});

const checkFailed = (err: unknown): string =>
  JSON.stringify({
    error: `The approval check failed (${err instanceof Error ? err.message : String(err)}), so the command was not run. Try again later.`,
  });

/** The check's verdict, or, when the check itself failed, the result that says nothing ran. */
async function judgeOrExplain(gate: Gate, input: RunToolInput, call: ToolCall): Promise<CallAssessment | string> {
  try {
    return await gate.judge(checkInput(input), call);
  } catch (err) {
    return checkFailed(err);
  }
}

/**
 * Before a call runs on a verdict reached earlier (a person decided, or the allowlist or a session approval let it
 * through): the files read for that verdict are read again. Unchanged, undefined (it runs). Changed, the call is
 * judged again on what is there now: a verdict that needs nobody runs it; one that does goes back to the workflow,
 * naming what changed, to be decided again. A string: the result that says nothing ran.
 */
async function recheck(gate: Gate, input: RunToolInput, bound: Record<string, string>, call: ToolCall) {
  let changed: string[];
  try {
    changed = await gate.changedFiles(checkInput(input), bound, call);
  } catch (err) {
    return checkFailed(err);
  }
  if (changed.length === 0) return undefined;
  const verdict = await judgeOrExplain(gate, input, call);
  if (typeof verdict === 'string' || !verdict.dangerous) return verdict;
  return { ...verdict, changed };
}

/** The entries of `reads` named by `keys`. */
const pick = (reads: Record<string, string> | undefined, keys: string[] | undefined) =>
  Object.fromEntries((keys ?? []).map((k) => [k, reads![k]!]));

/** The files (not listings, not the home directory's) a verdict was reached on: what a background process holds. */
function heldKeys(reads: Record<string, string> | undefined): string[] | undefined {
  const keys = Object.keys(reads ?? {}).filter(
    (k) => listedDir(k) === undefined && prefetchOf(k) === undefined && !k.startsWith('~'),
  );
  return keys.length > 0 ? keys : undefined;
}

export function createToolActivities(deps: ToolActivityDeps) {
  const { registry, hooks, log, config } = deps;

  /**
   * A plugin hook that rewrites a command runs after the approval gate: the new command is judged here, and one
   * that would have needed approval is not run.
   */
  async function modifiedCommandCheck(
    input: RunToolInput,
    call: ToolCall,
  ): Promise<((args: Record<string, unknown>) => string | undefined) | undefined> {
    const commandArg = call.entry?.commandArg;
    if (!commandArg) return undefined;
    const parse = await loadBashParser();
    const original = call.parsed && Object.hasOwn(call.parsed, commandArg) ? call.parsed[commandArg] : undefined;
    return (args) => {
      const command = args[commandArg];
      if (typeof command !== 'string' || command === original) return undefined;
      const verdict = detect(parse, command, { cwd: input.cwd });
      if (!verdict.dangerous) return undefined;
      return `A plugin hook changed the command to one that needs approval (${verdict.findings.map((f) => f.rule).join(', ')}), so it was not run.`;
    };
  }
  const loopHandled = deps.loopHandled ?? new Set<string>();

  async function listTools(input: ListToolsInput): Promise<ToolCatalog> {
    const problem = validateToolsets([...(input.enabledToolsets ?? []), ...(input.disabledToolsets ?? [])], registry);
    if (problem) throw ApplicationFailure.nonRetryable(problem, 'Config.Invalid');
    const all = getToolDefinitions(
      { enabledToolsets: input.enabledToolsets, disabledToolsets: input.disabledToolsets, quiet: true },
      registry,
      log,
    );
    const definitions = all.filter((d) => {
      const entry = registry.get(d.function.name);
      return entry !== undefined && (!entry.agentLoop || loopHandled.has(entry.name));
    });
    const meta: Record<string, ToolMeta> = {};
    for (const d of definitions) {
      const t = registry.get(d.function.name)!;
      meta[t.name] = {
        emoji: t.emoji,
        parallelSafe: t.parallelSafe,
        sideEffects: t.sideEffects,
        pathArg: t.pathArg,
        commandArg: t.commandArg,
        cwdArg: t.cwdArg,
        gated: t.gate ? true : undefined,
        agentLoop: t.agentLoop || undefined,
        environment: t.environment || undefined,
        timeoutSeconds: t.timeoutSeconds,
      };
    }
    return { definitions, meta };
  }

  /**
   * One tool call. `gated` (runGatedTool): the gate judges the call first, in the same activity: a call that
   * needs a person (or the policy) to decide is not run, and its verdict goes back to the workflow, which asks and
   * then runs it with runTool. A call that needs nobody runs at once, without an activity of its own for the check.
   * With `bound` (runTool after a decision), the files that verdict was reached on are compared first (recheck).
   */
  async function runTool(input: RunToolInput, gate?: Gate, gated = false): Promise<RunToolOutput> {
    // Before the check: a retried world-changing call is reported, never judged and run again.
    const interrupted = interruptedAttempt(input.name, registry);
    if (interrupted) {
      recordToolCall(input.name, 'interrupted', 0);
      return { status: 'ok', result: interrupted };
    }
    let progress: unknown;
    try {
      // Heartbeats let Temporal notice a dead worker within the heartbeat timeout, and deliver cancellation.
      return await withHeartbeat(
        async (signal) => {
          // The model's arguments, parsed and checked once: the judge, the second look, hooks and dispatch read this.
          const call = toolCall(registry, input.name, input.args);
          const routed = call.entry?.environment && deps.workerQueue ? { workerQueue: deps.workerQueue } : {};
          // The files (and their digests) the verdict this call runs on was reached on.
          let reads = input.bound;
          if (gate && gated && !input.approved) {
            const verdict = await judgeOrExplain(gate, input, call);
            if (typeof verdict === 'string') return { status: 'blocked', result: verdict, ...routed };
            if (verdict.dangerous) return { status: 'approval_required', result: '', assessment: verdict, ...routed };
            reads = verdict.reads;
          } else if (gate && input.bound !== undefined) {
            const again = await recheck(gate, input, input.bound, call);
            if (typeof again === 'string') return { status: 'blocked', result: again, ...routed };
            if (again?.dangerous) return { status: 'approval_required', result: '', assessment: again, ...routed };
            if (again?.reads) reads = again.reads;
          }
          const judgedReads = heldKeys(reads);
          // Only where a gate judged this call: what runs must be those bytes (judged-bytes.ts).
          const judgedDigests = gate ? comparableDigests(pick(reads, judgedReads)) : undefined;
          // Looked up only for a hook or a tool that reads it: a plain call pays nothing for it.
          const userTask =
            input.userTask ??
            (input.userTaskRef !== undefined && readsTask(input.name, registry, hooks)
              ? await deps.taskText?.(input.userTaskRef)
              : undefined);
          const checkModified = await modifiedCommandCheck(input, call);
          // The run and call a command started here belongs to: its connections' approvals name them.
          const owner = {
            workflowId: Context.current().info.workflowExecution?.workflowId,
            callId: input.callId,
            ...(judgedReads ? { judgedReads } : {}),
            ...(judgedDigests ? { judgedDigests } : {}),
          };
          // An `execute_tool` span and the tool metrics, when tracing or metrics are on.
          const observed = { name: input.name, callId: input.callId, args: input.args };
          const outcome = await observeTool(observed, () =>
            withToolCall(owner, () =>
              runToolCall(call, input.taskId, userTask, {
                registry,
                hooks,
                log,
                cwd: input.cwd,
                allowOutsideCwd: config.files.allow_outside_cwd,
                signal,
                approved: input.approved,
                progress: (d) => (progress = d),
                checkModified,
                environmentExpected: input.environmentExpected,
                backend: input.backend,
                // Capped once, where it leaves for history: the tool's own limit, at most Temporal's safe size.
                maxResultChars: Math.min(call.entry?.maxResultChars ?? HISTORY_RESULT_CHARS, HISTORY_RESULT_CHARS),
              }),
            ),
          );
          // Reported only now that the tool has stopped; its last words (killed, or not confirmed dead) go with it.
          if (signal.aborted)
            throw new CancelledFailure(`tool call ${input.callId} cancelled`, [
              { tool: input.name, callId: input.callId, result: String(outcome.result).slice(0, 2_000) },
            ]);
          const reason = outcome.status === 'approval_required' ? outcome.reason : undefined;
          const lost = lostWorker();
          return {
            status: outcome.status,
            result: outcome.result,
            ...(reason ? { reason } : {}),
            ...routed,
            ...(lost ? { lostWorker: lost } : {}),
          };
        },
        () => progress,
      );
    } catch (err) {
      if (err instanceof TetherError) {
        throw err.retryable
          ? ApplicationFailure.retryable(err.message, err.code)
          : ApplicationFailure.nonRetryable(err.message, err.code);
      }
      throw err;
    }
  }

  /** The run ended: its terminal environments and every other per-task resource on this worker (browser pages). */
  async function closeEnvironment(input: { taskId: string }): Promise<{ closed: number }> {
    const closed = await environmentManager().release(input.taskId);
    for (const f of await releaseTask(input.taskId))
      log.warn({ taskId: input.taskId, resource: f.name, err: f.error }, 'per-task clean-up failed');
    return { closed };
  }

  return { listTools, runTool, closeEnvironment };
}
