// Cancels a run and reports, from its history, whether each running tool call confirmed that it stopped. Worker-only.
import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { callActivity } from '../common/activity-contract.js';
import { cutOutsideSecrets, renderApprovalText } from '../approval/approval-text.js';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

interface StoppedCall {
  activity: string;
  /** The tool call in words (`terminal: sleep 120`), read from the activity's input; absent when it cannot be read. */
  call?: string;
  /** What the tool call said when it stopped (the tool's last result), when it said anything. */
  said?: string;
  outcome: 'stopped' | 'finished' | 'failed' | 'unconfirmed';
}

interface CancelReport {
  /** The run's Temporal status once the wait ended (CANCELLED, or RUNNING if it had not closed in time). */
  status: string;
  calls: StoppedCall[];
}

/** Characters of a call's command (or path, query, ...) a line shows. */
const CALL_CHARS = 100;

/** The tool and its most telling argument, from a runTool input (`{name, args}`): `terminal: sleep 120`. */
function callOf(p: temporal.api.common.v1.IPayloads | null | undefined): string | undefined {
  const data = p?.payloads?.[0]?.data;
  if (!data) return undefined;
  try {
    const input = JSON.parse(Buffer.from(data).toString('utf8')) as { name?: unknown; args?: unknown };
    if (typeof input?.name !== 'string') return undefined;
    const args = typeof input.args === 'string' ? (JSON.parse(input.args) as Record<string, unknown>) : {};
    const key = ['command', 'path', 'url', 'query', 'code'].find((k) => typeof args?.[k] === 'string');
    const what = key
      ? cutOutsideSecrets(
          String(args[key])
            .replace(/[ \t\n]+/g, ' ')
            .trim(),
          CALL_CHARS,
        )
      : '';
    // Rendered and redacted as approvals are: what others may read names no secret and hides no character.
    return renderApprovalText(`${input.name}${what ? `: ${what}` : ''}`, { redact: true, newlines: 'escape' }).text;
  } catch {
    return undefined;
  }
}

/** What a stopped tool call said, in words: its error or its last line of output, not its JSON. */
function saidInWords(said: string): string {
  let text = said;
  try {
    const v = JSON.parse(said) as { error?: unknown; output?: unknown };
    const out = typeof v.output === 'string' ? v.output.trimEnd().split('\n').at(-1) : undefined;
    text = typeof v.error === 'string' ? v.error : (out ?? said);
  } catch {
    // not JSON: the text as it is
  }
  return renderApprovalText(cutOutsideSecrets(text.trim(), 200), { redact: true, newlines: 'escape' }).text;
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
  const calls = new Map<number, string>();
  const asked = new Set<number>();
  const ended = new Map<number, Omit<StoppedCall, 'activity'>>();
  for (const e of events) {
    const id = Number(e.eventId);
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled) {
      types.set(id, callActivity(scheduled.activityType?.name ?? '?'));
      const call = callOf(scheduled.input);
      if (call) calls.set(id, call);
    }
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
    .map((id) => ({
      activity: types.get(id) ?? '?',
      ...(calls.has(id) ? { call: calls.get(id) } : {}),
      ...(ended.get(id) ?? { outcome: 'unconfirmed' as const }),
    }));
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

/** The lines `tether cancel` prints: what happened to the run, then each tool call the cancellation reached. */
export function formatCancelReport(workflowId: string, r: CancelReport): string[] {
  const lines: string[] = [];
  const stopped = r.calls.filter((c) => c.outcome === 'stopped').length;
  const count = (n: number): string => `${n} tool call${n === 1 ? '' : 's'}`;
  if (r.status === 'RUNNING')
    lines.push(
      `cancellation requested for ${workflowId}; it has not ended yet (its tool calls are still stopping, or no worker is running)`,
    );
  else if (r.status === 'CANCELLED')
    lines.push(
      `${workflowId} cancelled${r.calls.length === 0 ? ': no tool call was running' : `: ${count(stopped)} stopped`}`,
    );
  else lines.push(`${workflowId} had already ended: ${r.status.toLowerCase().replace(/_/g, ' ')}`);
  for (const c of r.calls) {
    const what = {
      stopped: 'stopped',
      finished: 'had already finished',
      failed: 'failed while stopping',
      unconfirmed: 'NOT confirmed stopped: its worker was lost (a local command dies with its worker)',
    }[c.outcome];
    const call = c.call ?? (c.activity === 'runTool' ? 'a tool call' : c.activity);
    lines.push(`  ${what}: ${call}${c.said ? ` (it said: ${saidInWords(c.said)})` : ''}`);
  }
  return lines;
}
