// Jaeger all-in-one for tests: the binary scripts/setup-jaeger.mjs built from its Go module, started on free loopback
// ports with in-memory storage, and its query HTTP API (/api/traces) read back.
import { spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from './cli.js';

export const JAEGER_VERSION = '1.75.0';

/** The cached binary, or undefined when it was not built (then the tests that need it say so and skip). */
export function jaegerBinary(): string | undefined {
  const root = process.env.TETHER_CACHE || join(homedir(), '.cache', 'tether');
  const binary = join(root, `jaeger-${JAEGER_VERSION}`, 'bin', 'jaeger');
  try {
    accessSync(binary, constants.X_OK);
    return binary;
  } catch {
    return undefined;
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface JaegerTag {
  key: string;
  type: string;
  value: unknown;
}

export interface JaegerSpan {
  traceID: string;
  spanID: string;
  operationName: string;
  references: { refType: string; traceID: string; spanID: string }[];
  startTime: number;
  duration: number;
  tags: JaegerTag[];
  logs: { timestamp: number; fields: JaegerTag[] }[];
  processID: string;
  /** What Jaeger found wrong with the span (an unknown parent, clock skew, ...). */
  warnings?: string[] | null;
}

export interface JaegerTrace {
  traceID: string;
  spans: JaegerSpan[];
  processes: Record<string, { serviceName: string; tags: JaegerTag[] }>;
}

export interface Jaeger {
  /** OTLP/HTTP base endpoint (the exporter adds /v1/traces). */
  otlpHttp: string;
  /** OTLP/gRPC endpoint. */
  otlpGrpc: string;
  /** The query service (HTTP API and, where its assets are given, the UI). */
  queryUrl: string;
  traces(service: string): Promise<JaegerTrace[]>;
  output(): string;
  stop(): Promise<void>;
}

/** A span's tag value by key. */
export const tag = (span: JaegerSpan, key: string): unknown => span.tags.find((t) => t.key === key)?.value;

/** The span's parent span id (its CHILD_OF reference), if any. */
export const parentOf = (span: JaegerSpan): string | undefined =>
  span.references.find((r) => r.refType === 'CHILD_OF')?.spanID;

/**
 * Starts Jaeger with its own configuration: OTLP receivers and the query service on free loopback ports, memory
 * storage, no other listener (the all-in-one default binds fixed ports that parallel tests would share).
 * `uiAssets`: a folder with a built Jaeger UI to serve (the Go build embeds only a placeholder page).
 */
export async function startJaeger(binary: string, opts: { uiAssets?: string } = {}): Promise<Jaeger> {
  const [grpc, http, query, queryGrpc, health] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const dir = mkdtempSync(join(tmpdir(), 'tether-jaeger-'));
  const config = join(dir, 'config.yaml');
  writeFileSync(
    config,
    `service:
  extensions: [jaeger_storage, jaeger_query, healthcheckv2]
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
extensions:
  healthcheckv2:
    use_v2: true
    http:
      endpoint: 127.0.0.1:${health}
  jaeger_storage:
    backends:
      memstore:
        memory:
          max_traces: 10000
  jaeger_query:
    storage:
      traces: memstore
    http:
      endpoint: 127.0.0.1:${query}
    grpc:
      endpoint: 127.0.0.1:${queryGrpc}
${opts.uiAssets ? `    ui:\n      assets_path: ${JSON.stringify(opts.uiAssets)}\n` : ''}receivers:
  otlp:
    protocols:
      grpc:
        endpoint: 127.0.0.1:${grpc}
      http:
        endpoint: 127.0.0.1:${http}
processors:
  batch:
    timeout: 100ms
exporters:
  jaeger_storage_exporter:
    trace_storage: memstore
`,
  );
  const child = spawn(binary, ['--config', `file:${config}`], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const queryUrl = `http://127.0.0.1:${query}`;
  await until(
    `Jaeger's query API on ${queryUrl} (output: ${out.slice(-500)})`,
    async () => {
      if (child.exitCode !== null) throw new Error(`jaeger exited with ${child.exitCode}: ${out}`);
      try {
        return (await fetch(`${queryUrl}/api/services`)).ok;
      } catch {
        return false;
      }
    },
    60_000,
  );
  return {
    otlpHttp: `http://127.0.0.1:${http}`,
    otlpGrpc: `http://127.0.0.1:${grpc}`,
    queryUrl,
    async traces(service) {
      const res = await fetch(`${queryUrl}/api/traces?service=${encodeURIComponent(service)}&limit=100&lookback=1h`);
      if (res.status === 404) return [];
      const body = (await res.json()) as { data: JaegerTrace[] | null };
      return body.data ?? [];
    },
    output: () => out,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await exited;
    },
  };
}
