// With the OTEL variables unset nothing of OpenTelemetry is loaded or exported: the module list of a real `tether
// worker` process proves it (and, with them set, shows the same recorder does see the SDK). Client-only commands
// never load it, set or not; a wrong value is one line naming the variable.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, inject, it } from 'vitest';
import { cliPath, runCli, until } from './support/cli.js';
import { looksLikeACrash } from './support/cli-process.js';
import { startScriptedModel } from './support/scripted-model.js';
import { workerEnv, workerProcessSuite } from './support/worker-process.js';

const recorder = fileURLToPath(new URL('./fixtures/module-recorder/record.mjs', import.meta.url));
const OTEL_MODULE = /\/node_modules\/@opentelemetry\/|\/interceptors-opentelemetry\/|\/observability\/tracing\.js/;

/** Runs `tether ...args` with the module recorder until `ready` shows (then SIGTERM), and returns what it loaded. */
async function loadedBy(
  args: string[],
  env: Record<string, string>,
  ready?: RegExp,
): Promise<{ modules: string[]; output: string }> {
  const file = join(mkdtempSync(join(tmpdir(), 'tether-modules-')), 'loaded.txt');
  const child = spawn('node', ['--import', recorder, cliPath, ...args], {
    env: { ...process.env, ...env, TETHER_RECORD_MODULES: file },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  if (ready) {
    await until(`${args.join(' ')} to be ready (output: ${output.slice(-300)})`, () => {
      if (child.exitCode !== null) throw new Error(`tether ${args.join(' ')} exited: ${output}`);
      return ready.test(output);
    });
    child.kill('SIGTERM');
  }
  await exited;
  const modules = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  return { modules, output };
}

describe('observability off', () => {
  const suite = workerProcessSuite();

  it('a worker without the OTEL variables loads no OpenTelemetry module and creates no exporter', async () => {
    const model = await startScriptedModel([]);
    suite.models.push(model);
    const { env } = workerEnv(inject('temporalAddress'), model.url, 'otel-off');
    const off = await loadedBy(['worker'], env, /tether worker ·/);
    // The recorder works: the worker's own modules are in the list.
    expect(off.modules.some((m) => m.includes('/dist/worker.js'))).toBe(true);
    expect(off.modules.some((m) => m.includes('/dist/observability/observe.js'))).toBe(true);
    expect(off.modules.filter((m) => OTEL_MODULE.test(m))).toEqual([]);

    // Set, the same recorder sees the SDK, the exporter and Temporal's interceptors (nothing listens there: export
    // failures are the exporter's to log, never the worker's to die of).
    const on = await loadedBy(
      ['worker'],
      { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_SERVICE_NAME: 'tether-off-test' },
      /tether worker ·/,
    );
    const loaded = on.modules.filter((m) => OTEL_MODULE.test(m)).join('\n');
    expect(loaded).toMatch(/@opentelemetry\/sdk-trace-node\//);
    expect(loaded).toMatch(/@opentelemetry\/exporter-trace-otlp-proto\//);
    expect(loaded).toMatch(/interceptors-opentelemetry\/lib\/worker\//);
    expect(loaded).not.toMatch(/exporter-trace-otlp-grpc/);
  }, 240_000);

  it('client-only commands never load it, even with the variables set', async () => {
    const model = await startScriptedModel([]);
    suite.models.push(model);
    const { env } = workerEnv(inject('temporalAddress'), model.url, 'otel-client');
    const set = { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' };
    for (const args of [['list', '--json'], ['status', 'no-such-run'], ['approvals']]) {
      const { modules } = await loadedBy(args, set);
      expect(modules.length, args.join(' ')).toBeGreaterThan(0);
      expect(
        modules.filter((m) => OTEL_MODULE.test(m)),
        args.join(' '),
      ).toEqual([]);
    }
  }, 240_000);

  it('a wrong OTEL value is one line naming the variable, for the worker and for tether run', async () => {
    const model = await startScriptedModel([]);
    suite.models.push(model);
    const { env } = workerEnv(inject('temporalAddress'), model.url, 'otel-bad');
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-otel-bad-')));
    const cases: [Record<string, string>, RegExp][] = [
      [
        { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' },
        /OTEL_EXPORTER_OTLP_PROTOCOL: 'http\/json' is not supported/,
      ],
      [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'collector:4318' }, /OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: .* must start/],
      [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' }, /OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' is not a URL/],
      [
        { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_TRACES_EXPORTER: 'zipkin' },
        /OTEL_TRACES_EXPORTER/,
      ],
    ];
    for (const [bad, line] of cases) {
      for (const args of [['worker'], ['run', '--no-worker', 'x']]) {
        const r = await runCli(args, { cwd, env: { ...env, ...bad } });
        expect(r.code, `${args[0]} ${JSON.stringify(bad)}`).not.toBe(0);
        expect(r.stderr).toMatch(line);
        expect(looksLikeACrash(r.stderr)).toBe(false);
      }
    }
    const metrics = await runCli(['worker', '--metrics', 'example.com:9464'], { cwd, env });
    expect(metrics.stderr).toMatch(/--metrics: 'example.com:9464': 'example.com' is not an IP address/);
    // A port something else holds: one line, not a crash of the runtime.
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const busy = await runCli(['worker', '--metrics', `127.0.0.1:${port}`], { cwd, env });
      expect(busy.code).not.toBe(0);
      expect(busy.stderr).toMatch(new RegExp(`^tether: cannot serve metrics at 127\\.0\\.0\\.1:${port}: `, 'm'));
      expect(looksLikeACrash(busy.stderr)).toBe(false);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  }, 300_000);
});
