// Takeover by a worker that is already polling: the worker running a command is SIGKILLed and the other one finishes
// the run without a new worker being started; what makes that quick is checked as mechanism, never as timing.
import { existsSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import proto from '@temporalio/proto';
import { expect, inject, it } from 'vitest';
import type { AgentResult } from '../src/common/types.js';
import { until } from './support/cli.js';
import { findBrowser } from '../src/browser/find-browser.js';
import { callActivity } from '../src/common/activity-contract.js';
import { startScriptedModel } from './support/scripted-model.js';
import { workerEnv, workerProcessSuite } from './support/worker-process.js';

const { EventType } = proto.temporal.api.enums.v1;
const { client: temporal, workers } = workerProcessSuite();

const pidOf = (identity: string | null | undefined): number => Number(/^(\d+)@/.exec(identity ?? '')?.[1]);

/** The 'worker ready' lines the workers wrote to the shared log file. */
function readyLines(home: string): { pid: number; workflows?: string; browser?: boolean }[] {
  return readFileSync(join(home, 'logs', 'tether.log'), 'utf8')
    .split('\n')
    .filter((l) => l.includes('"worker ready"'))
    .map((l) => JSON.parse(l) as { pid: number; workflows?: string; browser?: boolean });
}

it('a standby worker takes over the run of a worker SIGKILLed during a command; the command is not run again', async () => {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-takeover-')));
  const log = join(cwd, 'log.txt');
  const model = await startScriptedModel([
    {
      toolCalls: [
        { name: 'terminal', arguments: { command: `echo started >> ${log}; sleep 30; echo finished >> ${log}` } },
      ],
    },
    { content: 'taken over' },
  ]);
  const { env, taskQueue } = workerEnv(inject('temporalAddress'), model.url, 'takeover');
  const [a, b] = await Promise.all([workers.start(env), workers.start(env)]);
  const byPid = new Map([a, b].map((w) => [w.child.pid!, w]));
  // Both started without running webpack: `npm run build` made the bundle and it matches the sources.
  expect(readyLines(env.TETHER_HOME!).map((l) => l.workflows)).toEqual(['prebuilt', 'prebuilt']);
  // Where a browser is found, Playwright is loaded before the worker takes calls (its load stalls heartbeats).
  const browser = findBrowser(undefined) !== undefined;
  expect(readyLines(env.TETHER_HOME!).map((l) => l.browser)).toEqual([browser, browser]);

  const handle = await temporal().workflow.start('agentWorkflow', {
    taskQueue,
    workflowId: `takeover-${randomUUID()}`,
    args: [{ task: 'run a long command', model: 'scripted', cwd }],
  });
  await until('the command to start', () => existsSync(log));
  let runningOn = 0;
  await until('the command to show as running on a worker', async () => {
    const desc = await handle.describe();
    const tool = desc.raw.pendingActivities?.find(
      (p) => callActivity(p.activityType?.name ?? '') === 'runTool' && p.state === 2,
    );
    runningOn = pidOf(tool?.lastWorkerIdentity);
    return byPid.has(runningOn);
  });
  const victim = byPid.get(runningOn)!;
  const survivor = [a, b].find((w) => w !== victim)!;
  const killedAt = Date.now();
  await victim.kill('SIGKILL');

  // No worker is started: the one already polling finishes the run.
  const result = (await handle.result()) as AgentResult;
  expect(result).toMatchObject({ status: 'completed', answer: 'taken over', turns: 2, toolCalls: 1 });
  expect(model.errors).toEqual([]);
  expect(model.requests).toHaveLength(2);
  const toolMessage = model.requests[1]!.messages.find((m) => m.role === 'tool')!;
  expect(JSON.parse(toolMessage.content!)).toMatchObject({ interrupted: true });
  expect(readFileSync(log, 'utf8')).toBe('started\n');

  const events = (await handle.fetchHistory()).events ?? [];
  const eventMs = (e: (typeof events)[number]): number =>
    Number(e.eventTime?.seconds ?? 0) * 1000 + Math.floor((e.eventTime?.nanos ?? 0) / 1e6);
  // Every workflow task after the kill ran on the survivor.
  const later = events.filter(
    (e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED && eventMs(e) > killedAt,
  );
  expect(later.length).toBeGreaterThan(0);
  expect(later.map((e) => pidOf(e.workflowTaskStartedEventAttributes?.identity))).toEqual(
    later.map(() => survivor.child.pid),
  );
  // The attempt that took over released the dead worker's sticky queue: the workflow task after it went to the
  // shared queue at once instead of waiting out the sticky-queue timeout there.
  const toolDone = events.findIndex(
    (e) => e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED && eventMs(e) > killedAt,
  );
  expect(toolDone).toBeGreaterThan(0);
  const next = events.slice(toolDone).find((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED);
  expect(next?.workflowTaskScheduledEventAttributes?.taskQueue?.kind).toBe(
    proto.temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL,
  );
  expect(events.filter((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT)).toEqual([]);
  // Every call the loop waits on while the run goes on (model call, command with its gate check) is noticed as lost
  // by its missing heartbeats, not by its much longer start-to-close timeout.
  const scheduled = events
    .filter((e) => e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)
    .map((e) => e.activityTaskScheduledEventAttributes!)
    .filter((s) => ['callModel', 'runTool'].includes(callActivity(s.activityType?.name ?? '')));
  expect(new Set(scheduled.map((s) => callActivity(s.activityType?.name ?? '')))).toEqual(
    new Set(['callModel', 'runTool']),
  );
  for (const s of scheduled)
    expect([s.activityType?.name, Number(s.heartbeatTimeout?.seconds ?? 0)]).toEqual([s.activityType?.name, 2]);
  await survivor.kill('SIGTERM');
  await model.close();
}, 120_000);
