// When tracing is on, over which protocol, and the one line a wrong OTEL value gets.
import { describe, expect, it } from 'vitest';
import { otelSettings } from './otel-env.js';

describe('otelSettings', () => {
  it('is off without an endpoint, when the SDK is disabled, or when traces are turned off', () => {
    expect(otelSettings({})).toBeUndefined();
    expect(otelSettings({ OTEL_SERVICE_NAME: 'x', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toBeUndefined();
    expect(otelSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' })).toBeUndefined();
    const on = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };
    expect(otelSettings({ ...on, OTEL_SDK_DISABLED: 'TRUE' })).toBeUndefined();
    expect(otelSettings({ ...on, OTEL_TRACES_EXPORTER: 'none' })).toBeUndefined();
  });

  it('defaults to HTTP/protobuf; gRPC by the standard variable, the traces one first', () => {
    expect(otelSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toEqual({
      protocol: 'http/protobuf',
      endpoint: 'http://c:4318',
      captureContent: false,
    });
    expect(
      otelSettings({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://c/v1/traces', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }),
    ).toMatchObject({ protocol: 'grpc', endpoint: 'https://c/v1/traces' });
    expect(
      otelSettings({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc',
      }),
    ).toMatchObject({ protocol: 'grpc' });
  });

  it('captures content only when the GenAI variable says true', () => {
    const on = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' };
    expect(otelSettings({ ...on, OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' })?.captureContent).toBe(
      true,
    );
    expect(otelSettings({ ...on, OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: '1' })?.captureContent).toBe(
      false,
    );
  });

  it.each([
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'c:4318' }, /^OTEL_EXPORTER_OTLP_ENDPOINT: 'c:4318' must start with http/],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '::' }, /^OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '::' is not a URL/],
    [
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' },
      /^OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http\/json' is not supported/,
    ],
    [
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c', OTEL_TRACES_EXPORTER: 'otlp,console' },
      /^OTEL_TRACES_EXPORTER: .*'console'/,
    ],
  ])('refuses %j naming the variable', (env, line) => {
    expect(() => otelSettings(env)).toThrow(line);
  });
});
