// History size against the content a run produced, for the history-size tests and `npm run bench:long`: a scripted
// run whose every turn reads a ~2.5 KB file, the bytes the model was given and gave, and checks on the requests.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import type { CallModelInput } from '../../src/common/activity-contract.js';
import type { ChatRequest, ScriptedReply, Step } from './scripted-model.js';

/** A file of numbered lines in `dir`, long enough for `turns` reads of 40 lines (about 2.5 KB each). */
export function writeReadable(dir: string, turns: number): string {
  const lines = Array.from({ length: turns + 40 }, (_, i) => `line ${i + 1}: ${'lorem ipsum dolor '.repeat(3)}`);
  writeFileSync(join(dir, 'data.txt'), `${lines.join('\n')}\n`);
  return 'data.txt';
}

/**
 * `turns` model turns: turn n reads 40 lines from line n (a ~2.5 KB result); the last answers. The turn is read
 * from the last tool result, so the script holds through compaction, and a retried request gets the same answer.
 */
export function readingScript(turns: number, path = 'data.txt'): Step[] {
  const step = (req: ChatRequest): ScriptedReply => {
    const last = req.messages.filter((m) => m.role === 'tool').at(-1);
    const read = last ? (JSON.parse(last.content ?? '{}') as { content?: string }).content : undefined;
    const n = read ? Number(/^\s*(\d+)\|/.exec(read)?.[1]) + 1 : 1;
    if (n >= turns) return { content: `done after ${n} turns` };
    return {
      content: `Turn ${n}: reading on.`,
      toolCalls: [{ name: 'read_file', arguments: { path, offset: n, limit: 40 } }],
    };
  };
  return Array.from({ length: turns + 1 }, () => step);
}

type Message = ChatRequest['messages'][number];

function messageBytes(m: Message): number {
  const calls = (m.tool_calls ?? []) as { function?: { name?: string; arguments?: string } }[];
  return (
    Buffer.byteLength(m.content ?? '') +
    calls.reduce(
      (n, c) => n + Buffer.byteLength(c.function?.name ?? '') + Buffer.byteLength(c.function?.arguments ?? ''),
      0,
    )
  );
}

/**
 * The bytes the run produced: every distinct message the main model was given (system prompt, task, its own
 * replies, tool results, compaction summaries) plus the final answer, which no request carries.
 */
export function producedBytes(requests: ChatRequest[], model: string, finalAnswer: string): number {
  const seen = new Set<string>();
  let n = Buffer.byteLength(finalAnswer);
  for (const r of requests.filter((q) => q.model === model)) {
    for (const m of r.messages) {
      const key = JSON.stringify(m);
      if (seen.has(key)) continue;
      seen.add(key);
      n += messageBytes(m);
    }
  }
  return n;
}

/**
 * Consecutive requests of `model` with no other model's request (a compaction summary) between them: the later one
 * must be the earlier one plus the reply and its tool results, or the same conversation asked again (a retry).
 * Returns one line per violation.
 */
export function conversationBreaks(requests: ChatRequest[], model: string): string[] {
  const out: string[] = [];
  for (let i = 1; i < requests.length; i += 1) {
    const [a, b] = [requests[i - 1]!, requests[i]!];
    if (a.model !== model || b.model !== model) continue;
    const prefix = JSON.stringify(b.messages.slice(0, a.messages.length));
    if (prefix !== JSON.stringify(a.messages)) out.push(`request ${i + 1} does not continue request ${i}`);
    else if (b.messages.length !== a.messages.length && b.messages.length !== a.messages.length + 2)
      out.push(`request ${i + 1} has ${b.messages.length} messages after ${a.messages.length}`);
  }
  return out;
}

/** Encoded bytes of a workflow's histories (every run) by event type, activity events by activity type too. */
export async function historyBreakdown(client: Client, workflowId: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for await (const w of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
    const history = await client.workflow.getHandle(workflowId, w.runId).fetchHistory();
    const types = new Map<number, string>();
    for (const e of history.events ?? []) {
      const scheduled = e.activityTaskScheduledEventAttributes;
      if (scheduled) types.set(Number(e.eventId), scheduled.activityType?.name ?? '?');
      const of =
        e.activityTaskStartedEventAttributes ??
        e.activityTaskCompletedEventAttributes ??
        e.activityTaskFailedEventAttributes ??
        e.activityTaskTimedOutEventAttributes;
      const activity = scheduled ? types.get(Number(e.eventId)) : of ? types.get(Number(of.scheduledEventId)) : '';
      const key = `${proto.temporal.api.enums.v1.EventType[e.eventType ?? 0]}${activity ? ` ${activity}` : ''}`;
      out[key] = (out[key] ?? 0) + proto.temporal.api.history.v1.HistoryEvent.encode(e).finish().length;
    }
  }
  return out;
}

/** The inputs of the model calls scheduled in a workflow's latest run, in order. */
export async function modelInputs(client: Client, workflowId: string): Promise<CallModelInput[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? [])
    .map((e) => e.activityTaskScheduledEventAttributes)
    .filter((a) => a?.activityType?.name === 'callModel')
    .map((a) => JSON.parse(Buffer.from(a!.input!.payloads![0]!.data!).toString('utf8')) as CallModelInput);
}
