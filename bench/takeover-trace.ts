// Benchmark helper (not a test): where the time between a worker's SIGKILL and the run's next progress went, read
// from the run's history and the bench's own clock. Worker-side (Node) only.
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';

const { EventType, TaskQueueKind, TimeoutType } = proto.temporal.api.enums.v1;

/** One kill, as the bench saw it (epoch ms). */
export interface KillRecord {
  killedAt: number;
  activity: string;
  /** The model request that counted as progress. */
  progressAt: number;
  /** The replacement worker printed its ready line. */
  replacementReadyAt?: number;
  /** The first time describe() showed the killed call's next attempt started (model calls). */
  retryStartedAt?: number;
  pids: { victim: number; replacement?: number };
}

/** Offsets in seconds from the kill; undefined where the step did not happen in that window. */
export interface Breakdown {
  /** The server timed the lost call out (ActivityTaskTimedOut; a retried model call shows no such event). */
  timedOut?: number;
  /** A retried call's next attempt started on another worker. */
  retryStarted?: number;
  /** The first workflow task after the kill was scheduled, and on which kind of queue. */
  wftScheduled?: number;
  wftSticky?: boolean;
  /** It was picked up, and by whom ('standby', 'replacement', 'victim'). */
  wftStarted?: number;
  wftBy?: string;
  /** It completed; timeouts and failures of workflow tasks in the window. */
  wftCompleted?: number;
  /** Workflow tasks that waited out the dead worker's sticky queue; other workflow task timeouts; failures. */
  stickyTimeouts: number;
  wftTimeouts: number;
  wftFailures: number;
  /** The next model call was scheduled. */
  modelScheduled?: number;
  progress: number;
  replacementReady?: number;
}

type Event = proto.temporal.api.history.v1.IHistoryEvent;

function ms(e: Event): number {
  const t = e.eventTime;
  return Number(t?.seconds ?? 0) * 1000 + Math.floor((t?.nanos ?? 0) / 1e6);
}

/** Every event of the workflow (all runs of a continued-as-new chain are not followed: the bench never gets there). */
export async function historyEvents(client: Client, workflowId: string): Promise<Event[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return history.events ?? [];
}

/** Names the worker of an identity as this kill saw it: the victim, its replacement, or a standby. */
function roleOf(k: KillRecord, identity: string): string {
  const pid = Number(/^(\d+)@/.exec(identity)?.[1]);
  return pid === k.pids.victim ? 'victim' : pid === k.pids.replacement ? 'replacement' : 'standby';
}

export function breakdown(k: KillRecord, events: Event[]): Breakdown {
  const rel = (t: number | undefined): number | undefined => (t === undefined ? undefined : (t - k.killedAt) / 1000);
  const window = events.filter((e) => ms(e) >= k.killedAt && ms(e) <= k.progressAt + 50);
  const first = (type: number): Event | undefined => window.find((e) => e.eventType === type);
  const scheduled = first(EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED);
  const started = first(EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED);
  const modelScheduled = window.find(
    (e) =>
      e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED &&
      e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel',
  );
  const count = (type: number): number => window.filter((e) => e.eventType === type).length;
  const timedOut = first(EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT);
  const completed = first(EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED);
  return {
    timedOut: rel(timedOut && ms(timedOut)),
    retryStarted: rel(k.retryStartedAt),
    wftScheduled: rel(scheduled && ms(scheduled)),
    wftSticky: scheduled
      ? scheduled.workflowTaskScheduledEventAttributes?.taskQueue?.kind === TaskQueueKind.TASK_QUEUE_KIND_STICKY
      : undefined,
    wftStarted: rel(started && ms(started)),
    wftBy: started ? roleOf(k, started.workflowTaskStartedEventAttributes?.identity ?? '') : undefined,
    wftCompleted: rel(completed && ms(completed)),
    stickyTimeouts: window.filter(
      (e) =>
        e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT &&
        e.workflowTaskTimedOutEventAttributes?.timeoutType === TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START,
    ).length,
    wftTimeouts: window.filter(
      (e) =>
        e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT &&
        e.workflowTaskTimedOutEventAttributes?.timeoutType !== TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START,
    ).length,
    wftFailures: count(EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED),
    modelScheduled: rel(modelScheduled && ms(modelScheduled)),
    progress: (k.progressAt - k.killedAt) / 1000,
    replacementReady: rel(k.replacementReadyAt),
  };
}

const f = (n: number | undefined): string => (n === undefined ? '–' : n.toFixed(1));

/** One line per kill: the steps in order, seconds after the kill. */
export function describeBreakdown(b: Breakdown): string {
  const parts = [
    b.timedOut !== undefined ? `timed out ${f(b.timedOut)}` : undefined,
    b.retryStarted !== undefined ? `retry started ${f(b.retryStarted)}` : undefined,
    b.wftScheduled !== undefined ? `wft scheduled ${f(b.wftScheduled)}${b.wftSticky ? ' (sticky)' : ''}` : undefined,
    b.wftStarted !== undefined ? `started ${f(b.wftStarted)} by ${b.wftBy}` : undefined,
    b.wftCompleted !== undefined ? `completed ${f(b.wftCompleted)}` : undefined,
    b.stickyTimeouts ? `${b.stickyTimeouts} sticky-queue timeout(s)` : undefined,
    b.wftTimeouts ? `${b.wftTimeouts} wft start-to-close timeout(s)` : undefined,
    b.wftFailures ? `${b.wftFailures} wft failure(s)` : undefined,
    b.modelScheduled !== undefined ? `model call scheduled ${f(b.modelScheduled)}` : undefined,
    `progress ${f(b.progress)}`,
    b.replacementReady !== undefined ? `(replacement ready ${f(b.replacementReady)})` : undefined,
  ];
  return parts.filter(Boolean).join(' · ');
}
