// The OpenTelemetry SDK for a process that exports traces: provider, OTLP exporter (HTTP/protobuf or gRPC), resource
// from OTEL_SERVICE_NAME / OTEL_RESOURCE_ATTRIBUTES, and Temporal's interceptors for workers and clients. Imported
// only through loadTracing() (tracing-loader.ts), so a process without the variables never loads any of it. Worker-only.
import { trace } from '@opentelemetry/api';
import { detectResourcesSync, envDetectorSync, Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { ActivityInterceptorsFactory, InjectedSinks } from '@temporalio/worker';
import type { OpenTelemetrySinks } from '@temporalio/interceptors-opentelemetry/lib/workflow/definitions.js';
import type { Next, WorkflowClientInterceptor, WorkflowDescribeInput, WorkflowQueryInput } from '@temporalio/client';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/worker/index.js';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry/lib/client/index.js';
import type { OtelSettings } from './otel-env.js';
import { genAiTracing } from './genai-spans.js';
import { setTracing } from './observe.js';

/** The name a process reports when OTEL_SERVICE_NAME (or service.name in OTEL_RESOURCE_ATTRIBUTES) does not say. */
export const DEFAULT_SERVICE_NAME = 'tether';

export interface ActiveTracing {
  settings: OtelSettings;
  /** Spans of Temporal's activity interceptor, parents of the `chat` and `execute_tool` spans. */
  activityInterceptors: ActivityInterceptorsFactory;
  /** Where workflow spans (made inside the workflow sandbox) leave it: the interceptor's exporter sink. */
  sinks: InjectedSinks<OpenTelemetrySinks>;
  /** Start, signal and query spans on the client side, whose context the workflow's spans continue. */
  clientInterceptor(): WorkflowClientInterceptor;
  /** Sends what is buffered; a process calls it before it exits. */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** Followers and `tether status` query and describe runs every second: those calls get no span of their own. */
class ClientInterceptor extends OpenTelemetryWorkflowClientInterceptor {
  override query(input: WorkflowQueryInput, next: Next<WorkflowClientInterceptor, 'query'>): Promise<unknown> {
    return next(input);
  }
  override describe(input: WorkflowDescribeInput, next: Next<WorkflowClientInterceptor, 'describe'>) {
    return next(input);
  }
}

/** Only the protocol's exporter is loaded (gRPC brings @grpc/grpc-js). */
async function exporterFor(settings: OtelSettings): Promise<SpanExporter> {
  // Both read the endpoint, headers, timeout and TLS settings from the standard variables themselves.
  if (settings.protocol === 'grpc') {
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-grpc');
    return new OTLPTraceExporter();
  }
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-proto');
  return new OTLPTraceExporter();
}

/** Resource: tether's default name, overridden by OTEL_RESOURCE_ATTRIBUTES, overridden by OTEL_SERVICE_NAME. */
export function tracingResource(): Resource {
  return Resource.default()
    .merge(new Resource({ 'service.name': DEFAULT_SERVICE_NAME }))
    .merge(detectResourcesSync({ detectors: [envDetectorSync] }));
}

export async function startTracing(settings: OtelSettings): Promise<ActiveTracing> {
  const resource = tracingResource();
  const processor: SpanProcessor = new BatchSpanProcessor(await exporterFor(settings));
  const provider = new NodeTracerProvider({ resource, spanProcessors: [processor] });
  // Global: the AsyncLocalStorage context manager (so a tool's span finds its activity's span) and W3C propagation.
  provider.register();
  const tracer = trace.getTracer('tether');
  setTracing(
    genAiTracing(tracer, { captureContent: settings.captureContent, openaiBaseUrl: process.env.OPENAI_BASE_URL }),
  );
  return {
    settings,
    activityInterceptors: (ctx) => ({
      inbound: new OpenTelemetryActivityInboundInterceptor(ctx, { tracer }),
      outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
    }),
    sinks: { exporter: makeWorkflowExporter(processor, resource) },
    clientInterceptor: () => new ClientInterceptor({ tracer }),
    flush: () => provider.forceFlush(),
    shutdown: async () => {
      setTracing(undefined);
      await provider.shutdown();
    },
  };
}
