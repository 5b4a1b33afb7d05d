// tether's own worker metrics (tool calls, model calls and tokens, refusals), recorded through the Temporal runtime's
// metric meter so they are served on the same Prometheus endpoint as Temporal core's worker metrics. Until
// installMetrics is called (no --metrics) every function here returns at once. Worker-only.
import type { MetricCounter, MetricGauge, MetricHistogram, MetricMeter } from '@temporalio/common';
import type { TokenUsage } from '../common/types.js';

/** What happened to a tool call (the `outcome` label). */
export type ToolOutcome =
  'ok' | 'error' | 'blocked' | 'approval_required' | 'cancelled' | 'failed' | 'interrupted' | (string & {});

/** What a refusal refused: a path or command outside the task's sandbox, or a host the egress proxy did not allow. */
export type RefusalKind = 'sandbox' | 'egress';

/** Metric names without the `_total` suffix the Prometheus exporter adds to counters. */
export const METRIC_NAMES = {
  toolCalls: 'tether_tool_calls',
  toolDuration: 'tether_tool_call_duration_seconds',
  modelTokens: 'tether_model_tokens',
  modelCalls: 'tether_model_calls',
  modelDuration: 'tether_model_call_duration_seconds',
  refusals: 'tether_refusals',
  approvalsPending: 'tether_approvals_pending',
  approvalWait: 'tether_approval_wait_seconds',
} as const;

/** Bucket bounds in seconds: core's defaults are for milliseconds, far too coarse for these. */
export const HISTOGRAM_BUCKETS: Record<string, number[]> = {
  [METRIC_NAMES.toolDuration]: [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 180, 600, 1800, 3600],
  [METRIC_NAMES.modelDuration]: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 40, 60, 120, 300, 600],
  [METRIC_NAMES.approvalWait]: [1, 5, 15, 30, 60, 120, 300, 900, 1800, 3600, 4 * 3600, 24 * 3600, 7 * 24 * 3600],
};

interface Instruments {
  toolCalls: MetricCounter;
  toolDuration: MetricHistogram;
  modelTokens: MetricCounter;
  modelCalls: MetricCounter;
  modelDuration: MetricHistogram;
  refusals: MetricCounter;
  approvalsPending: MetricGauge;
  approvalWait: MetricHistogram;
}

let instruments: Instruments | undefined;

/** Creates tether's instruments on `meter` (the runtime's, once it exports metrics); later calls are ignored. */
export function installMetrics(meter: MetricMeter): void {
  instruments ??= {
    toolCalls: meter.createCounter(
      METRIC_NAMES.toolCalls,
      'calls',
      'Tool calls run by this worker, by tool and outcome',
    ),
    toolDuration: meter.createHistogram(
      METRIC_NAMES.toolDuration,
      'float',
      's',
      'How long tool calls took on this worker, by tool',
    ),
    modelTokens: meter.createCounter(METRIC_NAMES.modelTokens, 'tokens', 'Model tokens used, by model and kind'),
    modelCalls: meter.createCounter(METRIC_NAMES.modelCalls, 'calls', 'Model calls, by model and outcome'),
    modelDuration: meter.createHistogram(METRIC_NAMES.modelDuration, 'float', 's', 'How long model calls took'),
    refusals: meter.createCounter(
      METRIC_NAMES.refusals,
      'refusals',
      'What the sandbox or the egress proxy refused, by kind',
    ),
    approvalsPending: meter.createGauge(
      METRIC_NAMES.approvalsPending,
      'int',
      'approvals',
      'Approvals that runs on this worker wait for',
    ),
    approvalWait: meter.createHistogram(
      METRIC_NAMES.approvalWait,
      'float',
      's',
      'How long approvals waited for a decision, by outcome',
    ),
  };
}

export function metricsInstalled(): boolean {
  return instruments !== undefined;
}

export function recordToolCall(tool: string, outcome: ToolOutcome, seconds: number): void {
  if (!instruments) return;
  instruments.toolCalls.add(1, { tool, outcome });
  instruments.toolDuration.record(seconds, { tool });
}

export function recordModelCall(model: string, outcome: 'ok' | 'error', seconds: number, usage?: TokenUsage): void {
  if (!instruments) return;
  instruments.modelCalls.add(1, { model, outcome });
  instruments.modelDuration.record(seconds, { model });
  if (usage) {
    // Counters take whole, non-negative numbers; a provider that reports none reports 0.
    const input = Math.max(0, Math.round(usage.promptTokens || 0));
    const output = Math.max(0, Math.round(usage.completionTokens || 0));
    if (input > 0) instruments.modelTokens.add(input, { model, kind: 'input' });
    if (output > 0) instruments.modelTokens.add(output, { model, kind: 'output' });
  }
}

export function setApprovalsPending(count: number): void {
  instruments?.approvalsPending.set(count);
}

/** One decided approval; `outcome` is approved, denied or timeout. */
export function recordApprovalWait(seconds: number, outcome: string): void {
  instruments?.approvalWait.record(Math.max(0, seconds), { outcome });
}

/**
 * One refusal: `sandbox` for a path or command the sandbox kept inside the task, `egress` for a host the egress
 * proxy did not let through. Served as tether_refusals_total{kind}. The egress proxy calls this for each refused
 * connection.
 */
export function countRefusal(kind: RefusalKind): void {
  instruments?.refusals.add(1, { kind });
}
