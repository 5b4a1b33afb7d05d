// Turns `tether schedule create` options into a Temporal schedule: spec, overlap policy, the agent run to start. Worker-only.
import type { ScheduleOptions, ScheduleOverlapPolicy } from '@temporalio/client';
import type { AgentInput } from '../common/types.js';
import { agentWorkflow } from '../workflows/agent-workflow.js';

export const OVERLAP_POLICIES = [
  'skip',
  'buffer_one',
  'buffer_all',
  'cancel_other',
  'terminate_other',
  'allow_all',
] as const;
type OverlapName = (typeof OVERLAP_POLICIES)[number];

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

/**
 * The shortest --every. Each firing starts a whole agent run (model calls, tools), which takes seconds at least:
 * a shorter interval only piles runs up or skips them, and floods the model provider.
 */
const MIN_EVERY_SECONDS = 10;

/** `30s`, `5m`, `2h`, `1d`: an interval for --every, or why it cannot be one. */
export function parseEvery(text: string): { every: string } | { error: string } {
  const m = /^(\d+)\s*(s|m|h|d)$/.exec(text.trim());
  if (!m || Number(m[1]) < 1) return { error: `'${text}' is not an interval like 30s, 5m, 2h or 1d` };
  const unit = m[2] as 's' | 'm' | 'h' | 'd';
  if (Number(m[1]) * { s: 1, m: 60, h: 3600, d: 86400 }[unit] < MIN_EVERY_SECONDS) {
    return {
      error: `'${text}' is shorter than the minimum of ${MIN_EVERY_SECONDS}s: each firing starts a whole agent run, so a shorter interval only piles runs up or skips them`,
    };
  }
  return { every: `${m[1]} ${{ s: 'seconds', m: 'minutes', h: 'hours', d: 'days' }[unit]}` };
}

/** Schedule ids become part of each run's workflow id and of URLs: plain characters only. */
export function scheduleIdProblem(id: string): string | undefined {
  if (/^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/.test(id)) return undefined;
  return `'${id}' is not a schedule id: use up to 200 letters, digits, '.', '_' and '-', starting with a letter or digit (no spaces or slashes)`;
}

interface ScheduleRequest {
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
    action: {
      type: 'startWorkflow',
      workflowType: agentWorkflow,
      taskQueue: r.taskQueue,
      workflowId: r.scheduleId,
      args: [r.input],
    },
    policies: { overlap: OVERLAP[r.overlap] },
    state: { paused: r.paused ?? false, note: `tether: ${r.input.task?.slice(0, 100) ?? ''}` },
    memo: { tether: true, cron: r.cron ?? null, every: r.every ?? null },
  };
}
