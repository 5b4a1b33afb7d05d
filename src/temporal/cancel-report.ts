// Cancels a run and reports, from its history, whether each running tool call confirmed that it stopped. Worker-only.
import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { callActivity } from '../common/activity-contract.js';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

interface StoppedCall {
  activity: string;
  /** What the tool call said when it stopped (the tool's last result), when it said anything. */
  said?: string;
  outcome: 'stopped' | 'finished' | 'failed' | 'unconfirmed';
}

interface CancelReport {
  /** The run's Temporal status once the wait ended (CANCELLED, or RUNNING if it had not closed in time). */
  status: string;
  calls: StoppedCall[];
}

function firstPayloadText(p: temporal.api.common.v1.IPayloads | null | undefined): string | undefined {
  const data = p?.payloads?.[0]?.data;
  if (!data) return undefined;
  try {
    const value = JSON.parse(Buffer.from(data).toString('utf8')) as { result?: unknown } | null;
    return typeof value?.result === 'string' ? value.result : JSON.stringify(value);
  } catch {
    return undefined;
  }
}

/** The activities a cancellation reached, and how each ended: from the cancel requests in the run's history. */
export function cancelledCalls(events: HistoryEvent[]): StoppedCall[] {
  const types = new Map<number, string>();
  const asked = new Set<number>();
  const ended = new Map<number, Omit<StoppedCall, 'activity'>>();
  for (const e of events) {
    const id = Number(e.eventId);
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled) types.set(id, callActivity(scheduled.activityType?.name ?? '?'));
    const cancel = e.activityTaskCancelRequestedEventAttributes;
    if (cancel) asked.add(Number(cancel.scheduledEventId));
    const c = e.activityTaskCanceledEventAttributes;
    if (c) ended.set(Number(c.scheduledEventId), { outcome: 'stopped', said: firstPayloadText(c.details) });
    if (e.activityTaskCompletedEventAttributes)
      ended.set(Number(e.activityTaskCompletedEventAttributes.scheduledEventId), { outcome: 'finished' });
    if (e.activityTaskFailedEventAttributes)
      ended.set(Number(e.activityTaskFailedEventAttributes.scheduledEventId), { outcome: 'failed' });
    // A timeout after the cancel request: the worker running it was lost, so nobody saw it stop.
    if (e.activityTaskTimedOutEventAttributes)
      ended.set(Number(e.activityTaskTimedOutEventAttributes.scheduledEventId), { outcome: 'unconfirmed' });
  }
  return [...asked]
    .sort((a, b) => a - b)
    .map((id) => ({ activity: types.get(id) ?? '?', ...(ended.get(id) ?? { outcome: 'unconfirmed' as const }) }));
}

/** Requests cancellation, waits up to `waitMs` for the run to close, and reads what happened to its tool calls. */
export async function cancelAndReport(client: Client, workflowId: string, waitMs: number): Promise<CancelReport> {
  const handle = client.workflow.getHandle(workflowId);
  await handle.cancel();
  const deadline = Date.now() + waitMs;
  let status = (await handle.describe()).status.name;
  while (status === 'RUNNING' && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    status = (await handle.describe()).status.name;
  }
  const history = await handle.fetchHistory();
  return { status, calls: cancelledCalls(history.events ?? []) };
}

/** The lines `tether cancel` prints. */
export function formatCancelReport(workflowId: string, r: CancelReport): string[] {
  const lines: string[] = [];
  if (r.status === 'RUNNING')
    lines.push(
      `cancellation requested for ${workflowId}; it has not ended yet (its tool calls are still stopping, or no worker is running)`,
    );
  else lines.push(`${workflowId} ${r.status.toLowerCase()}`);
  for (const c of r.calls) {
    const what = {
      stopped: 'stopped',
      finished: 'had already finished',
      failed: 'failed while stopping',
      unconfirmed: 'NOT confirmed stopped: its worker was lost (a local command dies with its worker)',
    }[c.outcome];
    lines.push(`  ${c.activity}: ${what}${c.said ? ` (${c.said.slice(0, 200)})` : ''}`);
  }
  return lines;
}
