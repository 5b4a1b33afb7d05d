// The gate's activity: what a tool call would run (the tool's own `gate` function), with scripts it runs by path
// read in the task's environment, judged and matched against the allowlist. Runs on the worker that holds the
// task's environment. Worker-only.
import { assessSubject, type ReadScripts } from '../approval/assess.js';
import { shownText } from '../approval/subject.js';
import type { TetherConfig } from '../config/config.js';
import { environmentManager } from '../environments/current.js';
import { readScriptsIn } from '../environments/read-scripts.js';
import type { Logger } from '../logging/logger.js';
import type { ToolRegistry } from '../registry/registry.js';
import type { AssessCallInput, CallAssessment } from '../common/approval-types.js';
import { withHeartbeat } from './heartbeat.js';

interface GateActivityDeps {
  registry: ToolRegistry;
  config: TetherConfig;
  configFile: string;
  log: Logger;
  workerQueue?: string;
}

export function createGateActivities(deps: GateActivityDeps) {
  const { registry, config, configFile, log } = deps;

  async function assess(input: AssessCallInput): Promise<CallAssessment> {
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
    let args: unknown;
    try {
      args = JSON.parse(input.args || '{}');
    } catch {
      args = undefined;
    }
    const valid = entry ? entry.validate(args) : undefined;
    // Arguments the tool will refuse run nothing: dispatch reports the problem to the model.
    if (!entry?.gate || !valid?.ok)
      return { ...policy, command: '', dangerous: false, tier: null, findings: [], ...held() };
    const subject = await entry.gate(valid.value, { taskId: input.taskId, cwd: input.cwd, backend: input.backend });
    if (!subject) return { ...policy, command: '', dangerous: false, tier: null, findings: [], ...held() };
    const cwd = subject.workdir
      ? subject.workdir.startsWith('/')
        ? subject.workdir
        : `${input.cwd}/${subject.workdir}`
      : input.cwd;
    const read: ReadScripts = (keys) =>
      environmentManager().use(
        input.taskId,
        { hostCwd: input.cwd, expected: input.environmentExpected, backend: input.backend },
        ({ env }) => readScriptsIn(env, keys, subject.workdir),
      );
    const { verdict, allowlistedBy, scripts } = await assessSubject(subject, cwd, config, configFile, {
      read: entry.environment ? read : undefined,
      onUnreadable: (err) =>
        log.warn(
          { configFile, err: err.message },
          'could not read command_allowlist; using the start-up configuration',
        ),
    });
    return {
      ...policy,
      command: shownText(subject, scripts),
      dangerous: verdict.dangerous,
      tier: verdict.tier,
      findings: verdict.findings,
      allowlistedBy,
      ...held(),
    };
  }

  // Heartbeats let the workflow's heartbeat timeout notice a worker killed mid-check within seconds (without them a
  // lost check waited out its 2-minute start-to-close timeout).
  const assessCall = (input: AssessCallInput): Promise<CallAssessment> => withHeartbeat(() => assess(input));

  return { assessCall, judge: assess };
}
