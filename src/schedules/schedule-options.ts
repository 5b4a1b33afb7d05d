// Turns `tether schedule create` options into a Temporal schedule: spec, overlap policy, the agent run to start. Worker-only.
import type { ScheduleOptions, ScheduleOverlapPolicy } from '@temporalio/client';
import type { AgentInput } from '../common/types.js';

export const OVERLAP_POLICIES = ['skip', 'buffer_one', 'buffer_all', 'cancel_other', 'terminate_other', 'allow_all'] as const;
export type OverlapName = (typeof OVERLAP_POLICIES)[number];

const OVERLAP: Record<OverlapName, ScheduleOverlapPolicy> = {
  skip: 'SKIP',
  buffer_one: 'BUFFER_ONE',
  buffer_all: 'BUFFER_ALL',
  cancel_other: 'CANCEL_OTHER',
  terminate_other: 'TERMINATE_OTHER',
  allow_all: 'ALLOW_ALL',
};

export function isOverlapName(v: string): v is OverlapName {
  return (OVERLAP_POLICIES as readonly string[]).includes(v);
}

/** `30s`, `5m`, `2h`, `1d`: an interval for --every. */
export function parseEvery(text: string): string | undefined {
  const m = /^(\d+)\s*(s|m|h|d)$/.exec(text.trim());
  if (!m || Number(m[1]) < 1) return undefined;
  const unit = { s: 'seconds', m: 'minutes', h: 'hours', d: 'days' }[m[2] as 's' | 'm' | 'h' | 'd'];
  return `${m[1]} ${unit}`;
}

export interface ScheduleRequest {
  scheduleId: string;
  cron?: string;
  every?: string;
  overlap: OverlapName;
  taskQueue: string;
  input: AgentInput;
  paused?: boolean;
}

/** Each firing starts an ordinary agent run (workflow id: the schedule id plus the firing time). */
export function scheduleOptions(r: ScheduleRequest): ScheduleOptions {
  return {
    scheduleId: r.scheduleId,
    spec: r.cron ? { cronExpressions: [r.cron] } : { intervals: [{ every: r.every! }] },
    action: { type: 'startWorkflow', workflowType: 'agentWorkflow', taskQueue: r.taskQueue, workflowId: r.scheduleId, args: [r.input] },
    policies: { overlap: OVERLAP[r.overlap] },
    state: { paused: r.paused ?? false, note: `tether: ${r.input.task?.slice(0, 100) ?? ''}` },
    memo: { tether: true, cron: r.cron ?? null, every: r.every ?? null },
  };
}
