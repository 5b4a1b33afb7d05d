// Whether OpenTelemetry export is on, read from the standard OTEL_* variables, and checked: nothing here loads the
// OpenTelemetry SDK, so a process with the variables unset pays for one look at its environment. Worker-only.
import { TetherError } from '../common/errors.js';

export type OtlpProtocol = 'http/protobuf' | 'grpc';

export interface OtelSettings {
  protocol: OtlpProtocol;
  /** The endpoint the traces go to, as the variables give it (the exporter adds /v1/traces to a base endpoint). */
  endpoint: string;
  /** OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true: model messages and tool arguments/results, redacted. */
  captureContent: boolean;
}

const PROTOCOLS: readonly string[] = ['http/protobuf', 'grpc'];

const isTrue = (v: string | undefined): boolean => v?.trim().toLowerCase() === 'true';

/**
 * The trace export settings, or undefined when nothing is to be exported: no OTLP endpoint set, the SDK disabled
 * (OTEL_SDK_DISABLED=true) or traces turned off (OTEL_TRACES_EXPORTER=none). A value that cannot work is one line
 * naming the variable, at start-up.
 */
export function otelSettings(env: NodeJS.ProcessEnv = process.env): OtelSettings | undefined {
  const tracesEndpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  const baseEndpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  const endpoint = tracesEndpoint || baseEndpoint;
  if (!endpoint || isTrue(env.OTEL_SDK_DISABLED)) return undefined;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? 'otlp')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  if (exporters.includes('none')) return undefined;
  const unknown = exporters.filter((e) => e !== 'otlp');
  if (unknown.length > 0)
    throw new TetherError(
      'Config.Invalid',
      `OTEL_TRACES_EXPORTER: tether exports traces over OTLP only (otlp or none), got '${unknown.join(',')}'`,
    );
  const variable = tracesEndpoint ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : 'OTEL_EXPORTER_OTLP_ENDPOINT';
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new TetherError(
      'Config.Invalid',
      `${variable}: '${endpoint}' is not a URL (for example http://127.0.0.1:4318)`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new TetherError(
      'Config.Invalid',
      `${variable}: '${endpoint}' must start with http:// or https:// (gRPC too: OTEL_EXPORTER_OTLP_PROTOCOL=grpc picks the protocol)`,
    );
  const protocolVariable = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?.trim()
    ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'
    : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = env[protocolVariable]?.trim() || 'http/protobuf';
  if (!PROTOCOLS.includes(protocol))
    throw new TetherError(
      'Config.Invalid',
      `${protocolVariable}: '${protocol}' is not supported; use http/protobuf (the default) or grpc`,
    );
  return {
    protocol: protocol as OtlpProtocol,
    endpoint,
    captureContent: isTrue(env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT),
  };
}
