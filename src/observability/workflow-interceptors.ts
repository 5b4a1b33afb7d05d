// The workflow interceptors of the traced workflow bundle: a RunWorkflow span and StartActivity spans whose context
// the activities continue, and a span for each approval wait. Built on the pieces of Temporal's OpenTelemetry
// interceptors (sink exporter, context manager, header propagation), but with span ids that take nothing from the
// workflow's random numbers and without extra awaits, so traced and untraced workers replay each other's histories.
// Workflow-safe: spans leave the sandbox through the exporter sink, never on replay.
// First: gives the sandbox the `performance` clock (workflow time) the OpenTelemetry SDK reads as it loads.
import '@temporalio/interceptors-opentelemetry/lib/workflow/runtime.js';
import { context, SpanStatusCode, trace, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, SimpleSpanProcessor, type IdGenerator } from '@opentelemetry/sdk-trace-base';
import {
  ApplicationFailure,
  ContinueAsNew,
  workflowInfo,
  type ActivityInput,
  type ContinueAsNewInput,
  type DisposeInput,
  type LocalActivityInput,
  type Next,
  type SignalWorkflowInput,
  type StartChildWorkflowExecutionInput,
  type WorkflowExecuteInput,
  type WorkflowInboundCallsInterceptor,
  type WorkflowInterceptors,
  type WorkflowInternalsInterceptor,
  type WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';
import {
  extractContextFromHeaders,
  headersWithContext,
} from '@temporalio/interceptors-opentelemetry/lib/instrumentation.js';
import { ContextManager } from '@temporalio/interceptors-opentelemetry/lib/workflow/context-manager.js';
import { SpanExporter } from '@temporalio/interceptors-opentelemetry/lib/workflow/span-exporter.js';
import { onApprovalWait, type ApprovalWait } from '../workflows/approval-telemetry.js';

/** Span ids made so far, by run: reset when the run leaves this worker's cache, so a replay makes the same ids. */
const spansMade = new Map<string, number>();
const hex = (runId: string): string => runId.replace(/[^0-9a-fA-F]/g, '').toLowerCase();

/**
 * Ids from the run id and a count, never from Math.random: the workflow's random numbers (uuid4 of approval ids, ...)
 * must come out the same whether or not spans are made. A run started without a trace context gets its run id (as
 * 32 hex digits) for a trace id; each span, the run id's first 8 digits and its number in the run.
 */
class RunIdGenerator implements IdGenerator {
  generateTraceId(): string {
    return hex(workflowInfo().runId).padEnd(32, '0').slice(0, 32);
  }

  generateSpanId(): string {
    const runId = workflowInfo().runId;
    const n = (spansMade.get(runId) ?? 0) + 1;
    spansMade.set(runId, n);
    return `${hex(runId).padEnd(8, '0').slice(0, 8)}${n.toString(16).padStart(8, '0')}`;
  }
}

let contextManager: ContextManager | undefined;
let tracer: Tracer | undefined;

/**
 * The sandbox's provider, made once: spans go to the worker through the exporter sink as they end. W3C trace context
 * is named, not read from OTEL_PROPAGATORS: the sandbox has no environment.
 */
function sandboxTracer(): Tracer {
  if (!tracer) {
    contextManager = new ContextManager();
    const provider = new BasicTracerProvider({ idGenerator: new RunIdGenerator() });
    provider.addSpanProcessor(new SimpleSpanProcessor(new SpanExporter()));
    provider.register({ contextManager, propagator: new W3CTraceContextPropagator() });
    tracer = provider.getTracer('tether');
  }
  return tracer;
}

function failed(span: Span, err: unknown): void {
  // A benign failure (a cancelled run's expected errors) is not an error of the span.
  if (err instanceof ApplicationFailure && err.category === 'BENIGN') return;
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
  span.recordException(err instanceof Error ? err : String(err));
}

/**
 * Runs `call` in a new span under `parent` without adding one await to the workflow's promise chain: the caller gets
 * the call's own promise, and the span ends on a branch of it. Temporal's interceptors await around each call; those
 * extra turns reorder commands against a history recorded without them, so a run could not move between a traced
 * and an untraced worker (test/replay.test.ts replays every recorded history with this bundle too).
 */
function spanAround<T>(
  tracer: Tracer,
  name: string,
  parent: Context,
  call: () => Promise<T>,
  fine: (err: unknown) => boolean = () => false,
): Promise<T> {
  const span = tracer.startSpan(name, undefined, parent);
  let result: Promise<T>;
  try {
    result = context.with(trace.setSpan(parent, span), call);
  } catch (err) {
    if (!fine(err)) failed(span, err);
    span.end();
    throw err;
  }
  result.then(
    () => span.end(),
    (err: unknown) => {
      if (!fine(err)) failed(span, err);
      span.end();
    },
  );
  return result;
}

const isContinueAsNew = (err: unknown): boolean => err instanceof ContinueAsNew;

type InboundNext<K extends keyof WorkflowInboundCallsInterceptor> = Next<WorkflowInboundCallsInterceptor, K>;
type OutboundNext<K extends keyof WorkflowOutboundCallsInterceptor> = Next<WorkflowOutboundCallsInterceptor, K>;

/**
 * The run's span, continuing the context its starter sent (`tether run`). Signals, updates and queries get none:
 * followers and the inbox query all the time, and a decision shows as its approval span, with who decided.
 */
class Inbound implements WorkflowInboundCallsInterceptor {
  execute(input: WorkflowExecuteInput, next: InboundNext<'execute'>): Promise<unknown> {
    const info = workflowInfo();
    const tracer = sandboxTracer(); // first: it registers the propagator that reads the starter's context
    const parent = extractContextFromHeaders(input.headers) ?? context.active();
    return spanAround(
      tracer,
      `RunWorkflow:${info.workflowType}`,
      parent,
      () => {
        trace.getActiveSpan()?.setAttributes({ temporalWorkflowId: info.workflowId, run_id: info.runId });
        return next(input);
      },
      isContinueAsNew,
    );
  }
}

/** A span for each activity, child run, continue-as-new and signal the run sends, whose context goes with it. */
class Outbound implements WorkflowOutboundCallsInterceptor {
  private around<T>(name: string, call: () => Promise<T>, fine?: (err: unknown) => boolean): Promise<T> {
    return spanAround(sandboxTracer(), name, context.active(), call, fine);
  }

  scheduleActivity(input: ActivityInput, next: OutboundNext<'scheduleActivity'>): Promise<unknown> {
    return this.around(`StartActivity:${input.activityType}`, () =>
      next({ ...input, headers: headersWithContext(input.headers) }),
    );
  }

  scheduleLocalActivity(input: LocalActivityInput, next: OutboundNext<'scheduleLocalActivity'>): Promise<unknown> {
    return this.around(`StartActivity:${input.activityType}`, () =>
      next({ ...input, headers: headersWithContext(input.headers) }),
    );
  }

  startChildWorkflowExecution(
    input: StartChildWorkflowExecutionInput,
    next: OutboundNext<'startChildWorkflowExecution'>,
  ): Promise<[Promise<string>, Promise<unknown>]> {
    return this.around(`StartChildWorkflow:${input.workflowType}`, () =>
      next({ ...input, headers: headersWithContext(input.headers) }),
    );
  }

  continueAsNew(input: ContinueAsNewInput, next: OutboundNext<'continueAsNew'>): Promise<never> {
    return this.around(
      `ContinueAsNew:${input.options.workflowType ?? workflowInfo().workflowType}`,
      () => next({ ...input, headers: headersWithContext(input.headers) }),
      isContinueAsNew,
    );
  }

  signalWorkflow(input: SignalWorkflowInput, next: OutboundNext<'signalWorkflow'>): Promise<void> {
    return this.around(`SignalWorkflow:${input.signalName}`, () =>
      next({ ...input, headers: headersWithContext(input.headers) }),
    );
  }
}

/** The wait as a span under the run's span, from the ask to the decision, with who decided and what. */
function approvalSpan(w: ApprovalWait): void {
  const span = sandboxTracer().startSpan(
    `approval ${w.tool}`,
    {
      startTime: w.askedAtMs,
      attributes: {
        'tether.approval.id': w.approvalId,
        'tether.approval.choice': w.choice,
        'tether.approval.source': w.source,
        'tether.approval.wait_seconds': (w.decidedAtMs - w.askedAtMs) / 1000,
        'gen_ai.tool.name': w.tool,
        'gen_ai.tool.call.id': w.callId,
        ...(w.by !== undefined ? { 'tether.approval.decided_by': w.by } : {}),
      },
    },
    context.active(),
  );
  span.end(w.decidedAtMs);
}

/** The run's span ids start again from 1 when it is replayed after leaving the cache. */
class Internals implements WorkflowInternalsInterceptor {
  dispose(input: DisposeInput, next: Next<WorkflowInternalsInterceptor, 'dispose'>): void {
    spansMade.delete(workflowInfo().runId);
    next(input);
  }
}

export const interceptors = (): WorkflowInterceptors => {
  onApprovalWait(approvalSpan);
  return { inbound: [new Inbound()], outbound: [new Outbound()], internals: [new Internals()] };
};
