// The paths a tool call took in runs recorded before the live one (src/workflows/tool-call.ts): kept so those runs
// replay as they ran, and for nothing else. Each is retired with its patch id (docs/upgrades.md). Workflow-safe.
import { patched } from '@temporalio/workflow';
import type { RunToolInput, RunToolOutput } from '../common/activity-contract.js';
import { normalizePath } from '../common/paths.js';
import type { ToolMeta } from '../common/types.js';
import type { ApprovalBook, GateRequest } from './approvals.js';
import type { PlannedCall } from './batching.js';
import type { EnvironmentRoute } from './environment-route.js';
import { assessRouted } from './gate-route.js';

/** Added with the gate for every channel (stdin, process input, scripts by path, execute_code). */
const GATE_PATCH = 'gate-every-channel';
/**
 * Added when a gated call's check moved into the tool's own activity (runGatedTool): one activity and one workflow
 * task fewer for every call nobody needs to decide. Before, the check was an activity of its own (assessCall).
 */
const GATE_IN_RUN_PATCH = 'gate-in-tool-activity';

/** The recorded paths: the check as an activity of its own, or the command alone judged by the gate. */
export type RecordedPath = 'check-activity' | 'command-only';

/**
 * The recorded path this call takes, if any: a gated tool in a run recorded before GATE_IN_RUN_PATCH (the check as an
 * activity of its own) or before GATE_PATCH (its command alone); a tool that declares a command without a gate (a
 * plugin's) is judged by its command alone. The patches are asked in the order they always were, so their markers fall
 * where they were recorded.
 */
export function recordedPath(meta: ToolMeta | undefined): RecordedPath | undefined {
  if (meta?.gated) {
    if (!patched(GATE_PATCH)) return 'command-only';
    return patched(GATE_IN_RUN_PATCH) ? undefined : 'check-activity';
  }
  return meta?.commandArg !== undefined ? 'command-only' : undefined;
}

/** What a recorded path does with the call (src/workflows/tool-call.ts's CallPath). */
export interface CallSteps {
  call: PlannedCall;
  input: RunToolInput;
  ctx: {
    environment: EnvironmentRoute;
    taskId: string;
    cwd: string;
    backend?: string;
    heartbeatTimeoutSeconds: number;
  };
  activity(input: RunToolInput): Promise<RunToolOutput>;
  gateRequest(command: string): GateRequest;
  ask(req: GateRequest, judge?: () => Promise<GateRequest | undefined>): ReturnType<ApprovalBook['gate']>;
}

/** The shell command in a call's arguments, when the tool declares one. */
export function commandOf(args: string, commandArg: string | undefined): string | undefined {
  if (!commandArg) return undefined;
  try {
    const parsed = JSON.parse(args || '{}') as Record<string, unknown>;
    const value =
      parsed && typeof parsed === 'object' && Object.hasOwn(parsed, commandArg) ? parsed[commandArg] : undefined;
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined; // dispatch reports the malformed arguments
  }
}

/** The directory a command runs in: the run's cwd, or the tool's working-directory argument resolved against it. */
export function commandCwd(args: string, cwdArg: string | undefined, cwd: string): string {
  if (!cwdArg) return cwd;
  try {
    const value = (JSON.parse(args || '{}') as Record<string, unknown>)[cwdArg];
    if (typeof value !== 'string' || value === '') return cwd;
    return normalizePath(value.startsWith('/') ? value : `${cwd}/${value}`);
  } catch {
    return cwd;
  }
}

/**
 * The recorded paths: the gated tool's check as an activity of its own (or, before the gate judged every channel,
 * the command alone), then the call with the decision. `approved`: a person or the policy decided it.
 */
export async function runRecordedBefore(
  path: CallSteps,
  kind: RecordedPath,
): Promise<{ out: RunToolOutput | string; approved: boolean }> {
  const { call, ctx } = path;
  const command = commandOf(call.args, call.meta?.commandArg);
  /** The check as an activity of its own (assessCall, on the worker holding the environment). */
  const assessOnItsOwn = async (): Promise<GateRequest | undefined> => {
    const a = await assessRouted(
      ctx.environment,
      call.meta?.environment === true,
      {
        name: call.name,
        args: call.args,
        taskId: ctx.taskId,
        cwd: ctx.cwd,
        ...(ctx.backend ? { backend: ctx.backend } : {}),
      },
      ctx.heartbeatTimeoutSeconds,
    );
    return a.dangerous ? { ...path.gateRequest(a.command), assessment: a } : undefined;
  };
  const gate =
    kind === 'check-activity'
      ? await path.ask(path.gateRequest(command ?? ''), assessOnItsOwn)
      : command !== undefined
        ? await path.ask(path.gateRequest(command))
        : undefined;
  if (gate && !gate.run) return { out: gate.result, approved: false };
  const approved = gate?.approved ?? false;
  return { out: await path.activity({ ...path.input, approved }), approved };
}
