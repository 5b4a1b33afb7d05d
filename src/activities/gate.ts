// The gate's activity: what a tool call would run (the tool's own `gate` function), with scripts it runs by path
// read in the task's environment, judged and matched against the allowlist. Runs on the worker that holds the
// task's environment. Worker-only.
import { assessSubject, type ReadScripts } from '../approval/assess.js';
import { MAX_SCRIPT_BYTES, type ScriptFile } from '../approval/scripts.js';
import { shownText } from '../approval/subject.js';
import type { TetherConfig } from '../config/config.js';
import { environmentManager } from '../environments/current.js';
import type { ShellEnvironment } from '../environments/shell-environment.js';
import { shQuote } from '../environments/shell-scripts.js';
import type { Logger } from '../logging/logger.js';
import type { ToolRegistry } from '../registry/registry.js';
import type { AssessCallInput, CallAssessment } from '../common/approval-types.js';

export interface GateActivityDeps {
  registry: ToolRegistry;
  config: TetherConfig;
  configFile: string;
  log: Logger;
  workerQueue?: string;
}

/** One shell line that prints `missing`, `unreadable`, or `size N` and then the file (when it is small enough). */
function readCommand(key: string): string {
  const path = key.startsWith('~/') ? `"$HOME"/${shQuote(key.slice(2))}` : shQuote(key);
  return `( f=${path}; if [ ! -e "$f" ]; then echo missing; elif [ ! -f "$f" ] || [ ! -r "$f" ]; then echo unreadable; else n=$(wc -c < "$f"); echo "size $n"; if [ "$n" -le ${MAX_SCRIPT_BYTES} ]; then cat "$f"; fi; fi )`;
}

function parseRead(output: string, exitCode: number | null): ScriptFile {
  if (exitCode !== 0) return { error: `could not be read (exit code ${exitCode})` };
  const nl = output.indexOf('\n');
  const head = (nl < 0 ? output : output.slice(0, nl)).trim();
  if (head === 'missing') return { missing: true };
  if (head === 'unreadable') return { error: 'is not a readable file' };
  const size = /^size\s+(\d+)$/.exec(head);
  if (!size) return { error: `could not be read (${head.slice(0, 80)})` };
  if (Number(size[1]) > MAX_SCRIPT_BYTES) return { error: `is too big to check (${size[1]} bytes; at most ${MAX_SCRIPT_BYTES} are read)` };
  const text = output.slice(nl + 1);
  // A compiled program is not a script: what it does cannot be read from its bytes.
  if (text.includes('\u0000') || text.startsWith('\u007fELF')) return { binary: true };
  return { text };
}

/** Reads scripts in a task's environment, each relative to where the command runs (`workdir`, or the shell's directory). */
export async function readScriptsIn(env: ShellEnvironment, keys: string[], workdir?: string): Promise<Map<string, ScriptFile>> {
  const out = new Map<string, ScriptFile>();
  for (const key of keys) {
    const r = await env.run({ command: readCommand(key), cwd: workdir, timeoutSeconds: 30 });
    out.set(key, parseRead(r.output, r.exitCode));
  }
  return out;
}

export function createGateActivities(deps: GateActivityDeps) {
  const { registry, config, configFile, log } = deps;

  async function assessCall(input: AssessCallInput): Promise<CallAssessment> {
    const entry = registry.get(input.name);
    const policy = { mode: config.approvals.mode, timeoutSeconds: config.approvals.timeout, notify: config.approvals.webhook_url !== undefined };
    const backend = input.backend ?? environmentManager().terminal.backend;
    // Only a worker that now holds the task's environment pins the task to itself.
    const held = (): { workerQueue?: string } => (entry?.environment && deps.workerQueue && environmentManager().has(input.taskId, backend) ? { workerQueue: deps.workerQueue } : {});
    let args: unknown;
    try {
      args = JSON.parse(input.args || '{}');
    } catch {
      args = undefined;
    }
    const valid = entry ? entry.validate(args) : undefined;
    // Arguments the tool will refuse run nothing: dispatch reports the problem to the model.
    if (!entry?.gate || !valid?.ok) return { ...policy, command: '', dangerous: false, tier: null, findings: [], ...held() };
    const subject = await entry.gate(valid.value, { taskId: input.taskId, cwd: input.cwd, backend: input.backend });
    if (!subject) return { ...policy, command: '', dangerous: false, tier: null, findings: [], ...held() };
    const cwd = subject.workdir ? (subject.workdir.startsWith('/') ? subject.workdir : `${input.cwd}/${subject.workdir}`) : input.cwd;
    const read: ReadScripts = (keys) =>
      environmentManager().use(input.taskId, { hostCwd: input.cwd, expected: input.environmentExpected, backend: input.backend }, ({ env }) => readScriptsIn(env, keys, subject.workdir));
    const { verdict, allowlistedBy, scripts } = await assessSubject(subject, cwd, config, configFile, {
      read: entry.environment ? read : undefined,
      onUnreadable: (err) => log.warn({ configFile, err: err.message }, 'could not read command_allowlist; using the start-up configuration'),
    });
    return { ...policy, command: shownText(subject, scripts), dangerous: verdict.dangerous, tier: verdict.tier, findings: verdict.findings, allowlistedBy, ...held() };
  }

  return { assessCall };
}
