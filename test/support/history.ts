// Records workflow histories for the replay test (never over an old one) and reads activity times from a history.
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@temporalio/client';
import { execFileSync } from 'node:child_process';
import { findTemporalBinary } from '../../src/temporal/temporal-bin.js';
import { callActivity } from '../../src/common/activity-contract.js';

export const historiesDir = fileURLToPath(new URL('../histories/', import.meta.url));

/**
 * The file name a new recording of `name` gets in `dir`: `name.json` the first time, then `name-v2.json`, `name-v3.json`, ...
 * (one past the highest version there), so an old history is never replaced and keeps replaying.
 */
export function nextHistoryFile(dir: string, name: string): string {
  // A plain kebab-case name (not itself ending in a version) keeps `name-vN.json` unambiguous.
  if (!/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(name) || /-v\d+$/.test(name))
    throw new Error(`history name ${JSON.stringify(name)}: use kebab-case without a -vN ending`);
  const versionOf = new RegExp(`^${name}(?:-v(\\d+))?\\.json$`);
  let highest = 0;
  for (const file of readdirSync(dir)) {
    const m = versionOf.exec(file);
    if (m) highest = Math.max(highest, m[1] === undefined ? 1 : Number(m[1]));
  }
  return highest === 0 ? `${name}.json` : `${name}-v${highest + 1}.json`;
}

/** Writes `json` as a new version of history `name` in `dir` and returns the file name; the `wx` flag refuses to replace a file. */
export function writeNewHistory(dir: string, name: string, json: string): string {
  const file = nextHistoryFile(dir, name);
  writeFileSync(join(dir, file), json, { flag: 'wx' });
  return file;
}

/** With RECORD_HISTORIES=1, saves the run's history as a new file for the replay test (commit it to guard determinism). */
export function recordHistory(address: string, workflowId: string, name: string, runId?: string): void {
  if (process.env.RECORD_HISTORIES !== '1') return;
  // The temporal CLI writes the canonical proto3 JSON that Worker.runReplayHistory reads. Without a run id, the
  // latest run (after continue-as-new, the last of the chain).
  const json = execFileSync(
    findTemporalBinary(),
    [
      'workflow',
      'show',
      '--address',
      address,
      '--workflow-id',
      workflowId,
      ...(runId ? ['--run-id', runId] : []),
      '--output',
      'json',
    ],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  writeNewHistory(historiesDir, name, json);
}

export interface Window {
  scheduledEventId: number;
  start: number;
  end: number;
}

function millis(t: { seconds?: unknown; nanos?: number | null } | null | undefined): number {
  return Number(t?.seconds ?? 0) * 1000 + Math.floor((t?.nanos ?? 0) / 1e6);
}

/** Start and close time of every activity of the given type (its eager try included), in the order scheduled. */
export async function activityWindows(client: Client, workflowId: string, activityType: string): Promise<Window[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const scheduled = new Map<number, string>();
  const started = new Map<number, number>();
  const windows: Window[] = [];
  for (const e of history.events ?? []) {
    const id = Number(e.eventId);
    if (e.activityTaskScheduledEventAttributes)
      scheduled.set(id, callActivity(e.activityTaskScheduledEventAttributes.activityType?.name ?? ''));
    if (e.activityTaskStartedEventAttributes)
      started.set(Number(e.activityTaskStartedEventAttributes.scheduledEventId), millis(e.eventTime));
    const closed =
      e.activityTaskCompletedEventAttributes ??
      e.activityTaskFailedEventAttributes ??
      e.activityTaskTimedOutEventAttributes;
    if (closed) {
      const sid = Number(closed.scheduledEventId);
      if (scheduled.get(sid) === activityType)
        windows.push({ scheduledEventId: sid, start: started.get(sid) ?? NaN, end: millis(e.eventTime) });
    }
  }
  return windows.sort((a, b) => a.scheduledEventId - b.scheduledEventId);
}

/** Both started before either finished. */
export function overlapping(a: Window, b: Window): boolean {
  return a.start < b.end && b.start < a.end;
}
