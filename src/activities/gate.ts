// The gate's activity: what a tool call would run (the tool's own `gate` function), with scripts it runs by path
// read in the task's environment, judged and matched against the allowlist; and, before a call whose verdict came
// earlier runs, the same files read again and compared. Runs on the worker that holds the task's environment.
// Worker-only.
import { normalizePath } from '../common/paths.js';
import { posix } from 'node:path';
import { assessSubject, digestsOf, type HeldFiles, type ReadScripts } from '../approval/assess.js';
import type { AllowlistBook } from '../approval/allowlist-book.js';
import { shownParts, unshowable, type CallSubject } from '../detector/engine/subject.js';
import type { TetherConfig } from '../config/config.js';
import { environmentManager } from '../environments/current.js';
import { currentDirectory, readScriptsIn } from '../environments/read-scripts.js';
import { readForFileTool } from '../files/gate-reads.js';
import type { ShellEnvironment } from '../environments/shell-environment.js';
import type { ToolRegistry } from '../registry/registry.js';
import { toolCall, type ToolCall } from '../registry/tool-call.js';
import type { AssessCallInput, CallAssessment } from '../common/approval-types.js';
import { withHeartbeat } from './heartbeat.js';
import { protectedPathsIn } from '../environments/backends/local/settings.js';
import { noteApprovedChange } from '../approval/protected-change.js';

interface GateActivityDeps {
  registry: ToolRegistry;
  config: TetherConfig;
  allowlist: AllowlistBook;
  workerQueue?: string;
}

/** What the person is shown of a call that cannot be shown whole: only the start, since it is refused anyway. */
const REFUSED_HEAD_CHARS = 2_000;

/**
 * What the task's running background processes were judged on, as absolute paths: only where this worker holds the
 * task's environment (a worker that does not, holds none of its processes either).
 */
function heldByProcesses(input: AssessCallInput, backend: string): HeldFiles[] {
  const env = environmentManager().peek(input.taskId, backend);
  if (!env) return [];
  return env.processes
    .heldFiles()
    .map((h) => ({ ...h, files: h.files.map((f) => (f.startsWith('/') ? f : posix.join(input.cwd, f))) }));
}

export function createGateActivities(deps: GateActivityDeps) {
  const { registry, config, allowlist } = deps;
  // Files other programs run or obey later: a file tool's change to one asks, whatever runs the commands.
  const protectedPaths = protectedPathsIn((config.terminal as Record<string, unknown>).local);

  /** The call's subject, where it runs, and a reader of files in its environment; undefined: it runs nothing. */
  async function subjectOf(
    input: AssessCallInput,
    call = toolCall(registry, input.name, input.args),
  ): Promise<{ subject: CallSubject; cwd: string; read?: ReadScripts; where?: () => Promise<string> } | undefined> {
    const entry = call.entry;
    // Arguments the tool will refuse run nothing: dispatch reports the problem to the model.
    if (!entry?.gate || !call.checked.ok) return undefined;
    const subject = await entry.gate(call.checked.value, {
      taskId: input.taskId,
      cwd: input.cwd,
      backend: input.backend,
    });
    if (!subject) return undefined;
    const cwd = subject.workdir
      ? subject.workdir.startsWith('/')
        ? subject.workdir
        : normalizePath(`${input.cwd}/${subject.workdir}`)
      : input.cwd;
    const inEnvironment = <T>(fn: (env: ShellEnvironment) => Promise<T>): Promise<T> =>
      environmentManager().use(
        input.taskId,
        { hostCwd: input.cwd, expected: input.environmentExpected, backend: input.backend },
        ({ env }) => fn(env),
      );
    const read: ReadScripts = (keys) => inEnvironment((env) => readScriptsIn(env, keys, subject.workdir));
    // The task's shell keeps the directory an earlier `cd` left: that is where the command runs.
    const where = (): Promise<string> => inEnvironment((env) => currentDirectory(env, subject.workdir, cwd));
    if (entry.environment) return { subject, cwd, read, where };
    // A file tool writes the task directory from the worker: what its verdict needs is read there, the same way.
    const scope = { cwd: input.cwd, allowOutsideCwd: config.files.allow_outside_cwd };
    return entry.pathArg !== undefined
      ? { subject, cwd, read: (keys) => readForFileTool(scope, keys) }
      : { subject, cwd };
  }

  async function assess(input: AssessCallInput, call?: ToolCall): Promise<CallAssessment> {
    const entry = registry.get(input.name);
    const policy = {
      mode: config.approvals.mode,
      timeoutSeconds: config.approvals.timeout,
      notify: config.approvals.webhook_url !== undefined,
    };
    const backend = input.backend ?? environmentManager().terminal.backend;
    // Only a worker that now holds the task's environment pins the task to itself.
    const held = (): { workerQueue?: string } =>
      entry?.environment && deps.workerQueue && environmentManager().has(input.taskId, backend)
        ? { workerQueue: deps.workerQueue }
        : {};
    const found = await subjectOf(input, call);
    if (!found) return { ...policy, command: '', dangerous: false, tier: null, findings: [], ...held() };
    const { subject, read, where } = found;
    const heldFiles = heldByProcesses(input, backend);
    const judged = await assessSubject(subject, found.cwd, allowlist.entries(), {
      read,
      where,
      tool: input.name,
      held: heldFiles,
      protectedPaths,
    });
    const { verdict, allowlistedBy, scripts, reads, scope } = judged;
    // What the judge itself says is shown (a request through the egress proxy) stands alone: it read no files.
    const { text: shown, readFiles } =
      judged.shown !== undefined ? { text: judged.shown, readFiles: undefined } : shownParts(subject, scripts);
    const tooLarge = verdict.tier === 'dangerous' ? unshowable(shown) : undefined;
    return {
      ...policy,
      command: tooLarge ? `${shown.slice(0, REFUSED_HEAD_CHARS)}…` : shown,
      dangerous: verdict.dangerous,
      tier: verdict.tier,
      findings: verdict.findings,
      allowlistedBy,
      ...(Object.keys(reads).length > 0 ? { reads } : {}),
      // Where the call's command runs, as judged here: the workflow shows it without reading the arguments again.
      cwd: normalizePath(found.cwd),
      ...(scope ? { scope, where: judged.cwd } : {}),
      ...(tooLarge ? { unshowable: tooLarge } : {}),
      // Which part of `command` is the files read, so views show them apart from what the model asked to run.
      ...(readFiles && !tooLarge ? { readFiles } : {}),
      ...held(),
    };
  }

  /** The files of `bound` whose content is not what the verdict was reached on any more (read again now). */
  async function changedFiles(
    input: AssessCallInput,
    bound: Record<string, string>,
    call?: ToolCall,
  ): Promise<string[]> {
    const keys = Object.keys(bound);
    if (keys.length === 0) return [];
    const found = await subjectOf(input, call);
    // The call's subject itself changed (a background process's input): everything counts as changed.
    if (!found?.read) return keys;
    const files = await found.read(keys);
    const now = digestsOf(files);
    const changed = keys.filter((k) => now[k] !== bound[k]);
    // Unchanged, the call runs now: a protected file it writes is the approved change, not a command's (the sandbox keeps it).
    if (changed.length === 0 && found.subject.change) noteApprovedChange(input.cwd, found.subject.change, files);
    return changed;
  }

  // Heartbeats let the workflow's heartbeat timeout notice a worker killed mid-check within seconds (without them a
  // lost check waited out its 2-minute start-to-close timeout).
  const assessCall = (input: AssessCallInput): Promise<CallAssessment> => withHeartbeat(() => assess(input));

  return { assessCall, judge: assess, changedFiles };
}
