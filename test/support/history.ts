// Reads activity start and end times from a workflow's history, to check what overlapped.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Client } from '@temporalio/client';
import { execFileSync } from 'node:child_process';
import { findTemporalBinary } from '../../src/temporal/temporal-bin.js';

export const historiesDir = fileURLToPath(new URL('../histories/', import.meta.url));

/** With RECORD_HISTORIES=1, saves the run's history for the replay test (commit the file to guard determinism). */
export function recordHistory(address: string, workflowId: string, name: string): void {
  if (process.env.RECORD_HISTORIES !== '1') return;
  // The temporal CLI writes the canonical proto3 JSON that Worker.runReplayHistory reads.
  const json = execFileSync(findTemporalBinary(), ['workflow', 'show', '--address', address, '--workflow-id', workflowId, '--output', 'json'], {
    encoding: 'utf8',
  });
  writeFileSync(`${historiesDir}${name}.json`, json);
}

export interface Window {
  scheduledEventId: number;
  start: number;
  end: number;
}

function millis(t: { seconds?: unknown; nanos?: number | null } | null | undefined): number {
  return Number(t?.seconds ?? 0) * 1000 + Math.floor((t?.nanos ?? 0) / 1e6);
}

/** Start and close time of every activity of the given type, in the order they were scheduled. */
export async function activityWindows(client: Client, workflowId: string, activityType: string): Promise<Window[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const scheduled = new Map<number, string>();
  const started = new Map<number, number>();
  const windows: Window[] = [];
  for (const e of history.events ?? []) {
    const id = Number(e.eventId);
    if (e.activityTaskScheduledEventAttributes) scheduled.set(id, e.activityTaskScheduledEventAttributes.activityType?.name ?? '');
    if (e.activityTaskStartedEventAttributes) started.set(Number(e.activityTaskStartedEventAttributes.scheduledEventId), millis(e.eventTime));
    const closed = e.activityTaskCompletedEventAttributes ?? e.activityTaskFailedEventAttributes ?? e.activityTaskTimedOutEventAttributes;
    if (closed) {
      const sid = Number(closed.scheduledEventId);
      if (scheduled.get(sid) === activityType) windows.push({ scheduledEventId: sid, start: started.get(sid) ?? NaN, end: millis(e.eventTime) });
    }
  }
  return windows.sort((a, b) => a.scheduledEventId - b.scheduledEventId);
}

/** Both started before either finished. */
export function overlapping(a: Window, b: Window): boolean {
  return a.start < b.end && b.start < a.end;
}
