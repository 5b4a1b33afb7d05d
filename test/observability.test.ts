// Observability end to end: a `tether worker` process exporting OTLP to a real Jaeger (built from its Go module by
// scripts/setup-jaeger.mjs) and serving Prometheus metrics, `tether run` carrying the trace context; the traces are
// read back through Jaeger's query API and the metrics through a Prometheus-text parser.
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { findBrowser } from '../src/browser/find-browser.js';
import type { AgentState } from '../src/common/types.js';
import { runCli, until } from './support/cli.js';
import { recordHistory } from './support/history.js';
import {
  jaegerBinary,
  JAEGER_VERSION,
  parentOf,
  startJaeger,
  tag,
  type Jaeger,
  type JaegerSpan,
  type JaegerTrace,
} from './support/jaeger.js';
import { parsePrometheusText, value, type Exposition } from './support/prometheus-text.js';
import { startScriptedModel, type ChatRequest } from './support/scripted-model.js';
import { resolveAll, startStandIn, type StandIn } from './support/egress-stand-in.js';
import { workerEnv, workerProcessSuite, type WorkerProcess } from './support/worker-process.js';

const binary = jaegerBinary();
/** TETHER_SCREENSHOTS=1 with TETHER_JAEGER_UI (a built Jaeger UI folder) writes docs/images/jaeger-trace.png. */
const uiAssets = process.env.TETHER_SCREENSHOTS === '1' ? process.env.TETHER_JAEGER_UI : undefined;
if (!binary)
  process.stderr.write(
    `observability.test.ts: Jaeger ${JAEGER_VERSION} is not built (node scripts/setup-jaeger.mjs builds it into ~/.cache/tether): the trace tests are skipped\n`,
  );

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function scrape(address: string): Promise<Exposition> {
  const res = await fetch(`http://${address}/metrics`);
  expect(res.status).toBe(200);
  return parsePrometheusText(await res.text());
}

const MODEL = 'gpt-traced';
const BLOCKED = 'blocked.example.test';
const TERMINAL_COMMAND = `echo traced-output; curl -fsS --max-time 30 http://${BLOCKED}/ || echo refused`;
const imagesDir = fileURLToPath(new URL('../docs/images/', import.meta.url));
const byName = (t: JaegerTrace, name: string): JaegerSpan[] => t.spans.filter((s) => s.operationName === name);
const one = (t: JaegerTrace, name: string): JaegerSpan => {
  const found = byName(t, name);
  expect(
    found.map((s) => s.operationName),
    `spans named ${name}`,
  ).toEqual([name]);
  return found[0]!;
};

/** The trace holding a span with this workflow id, once it holds `names` (spans arrive as they end). */
async function traceOf(jaeger: Jaeger, service: string, workflowId: string, names: string[]): Promise<JaegerTrace> {
  let found: JaegerTrace[] = [];
  const shownAll = (): string[] =>
    found.map((t) => t.spans.map((s) => `${s.operationName}(${s.spanID}<${parentOf(s) ?? ''})`).join(' '));
  await until(
    `a trace of ${workflowId} with ${names.join(', ')}`,
    async () => {
      found = (await jaeger.traces(service)).filter((t) =>
        t.spans.some((s) => tag(s, 'temporalWorkflowId') === workflowId),
      );
      return found.some((t) => names.every((n) => t.spans.some((s) => s.operationName === n)));
    },
    60_000,
  ).catch((err: Error) => {
    throw new Error(`${err.message}; traces found: ${JSON.stringify(shownAll())}`);
  });
  const shown = found.map((t) => t.spans.map((s) => `${s.operationName}(${s.spanID}<${parentOf(s) ?? ''})`).join(' '));
  expect(shown, 'one run is one trace').toHaveLength(1);
  return found[0]!;
}

/** Every span's parent is in the trace, exactly one span has none, and all share the trace id. */
function expectTree(t: JaegerTrace): JaegerSpan {
  const ids = new Set(t.spans.map((s) => s.spanID));
  const roots = t.spans.filter((s) => parentOf(s) === undefined);
  expect(roots.map((r) => r.operationName)).toHaveLength(1);
  for (const s of t.spans) {
    expect(s.traceID).toBe(t.traceID);
    const parent = parentOf(s);
    if (parent !== undefined) expect(ids.has(parent), `${s.operationName}'s parent is in the trace`).toBe(true);
  }
  return roots[0]!;
}

describe.skipIf(!binary)('traces in a real Jaeger, metrics on the worker', () => {
  const suite = workerProcessSuite();
  let jaeger: Jaeger;
  let worker: WorkerProcess;
  let metrics: string;
  let env: Record<string, string>;
  // Each test Jaeger is new, so the name only needs to differ from the gRPC test's; the screenshot shows it.
  const service = uiAssets ? 'tether' : `tether-test-${randomUUID().slice(0, 8)}`;
  let firstTrace = '';
  let stand: StandIn | undefined;
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-otel-')));
  writeFileSync(join(cwd, 'notes.txt'), 'line one\nline two\n');
  writeFileSync(join(tmpdir(), 'tether-otel-outside.txt'), 'outside\n');

  beforeAll(async () => {
    jaeger = await startJaeger(binary!, uiAssets ? { uiAssets } : {});
    // Two runs share the worker (and so its metrics): the task says which script a request follows.
    const pushing = (req: ChatRequest): boolean => JSON.stringify(req.messages[1] ?? '').includes('push it');
    const model = await startScriptedModel([
      (req) =>
        pushing(req)
          ? { toolCalls: [{ name: 'terminal', arguments: { command: 'git push --force' }, id: 'call_push' }] }
          : {
              toolCalls: [
                // The second half goes to a host egress.deny names: the egress proxy refuses it (a refusal).
                { name: 'terminal', arguments: { command: TERMINAL_COMMAND }, id: 'call_term' },
                { name: 'read_file', arguments: { path: 'notes.txt' }, id: 'call_read' },
                // Outside the task's directory: the sandbox refuses it (a refusal, and an error result).
                { name: 'read_file', arguments: { path: '../tether-otel-outside.txt' }, id: 'call_outside' },
              ],
              usage: { prompt: 120, completion: 30 },
            },
      (req) => (pushing(req) ? { content: 'pushed' } : { content: 'done', usage: { prompt: 200, completion: 7 } }),
    ]);
    suite.models.push(model);
    const w = workerEnv(inject('temporalAddress'), model.url, 'otel');
    stand = await startStandIn();
    writeFileSync(
      join(w.env.TETHER_HOME!, 'config.yaml'),
      JSON.stringify({
        terminal: {
          local: { sandbox: { egress: { deny: [BLOCKED], resolve: resolveAll([BLOCKED], stand) } } },
        },
      }),
    );
    env = {
      ...w.env,
      TETHER_MODEL: MODEL,
      OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpHttp,
      OTEL_SERVICE_NAME: service,
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=test',
      // Spans leave the worker within 0.2 s instead of 5 s.
      OTEL_BSP_SCHEDULE_DELAY: '200',
    };
    metrics = `127.0.0.1:${await freePort()}`;
    worker = await suite.workers.start(env, ['--metrics', metrics]);
  }, 180_000);
  afterAll(async () => {
    await jaeger?.stop();
    await stand?.close();
  });

  it('one run is one trace: workflow, activity, chat and execute_tool spans, correctly parented', async () => {
    expect(worker.output()).toContain(`metrics http://${metrics}/metrics`);
    const run = await runCli(['run', '--json', '--no-worker', '--cwd', cwd, 'look at the notes'], { cwd, env });
    expect(run.stderr).not.toMatch(/unexpected error/);
    const out = JSON.parse(run.stdout) as { workflowId: string; status: string };
    expect(out.status).toBe('completed');

    const t = await traceOf(jaeger, service, out.workflowId, [
      'StartWorkflow:agentWorkflow',
      'RunWorkflow:agentWorkflow',
      `chat ${MODEL}`,
      'execute_tool terminal',
      'execute_tool read_file',
    ]);
    firstTrace = t.traceID;
    // Jaeger finds nothing wrong with a span (an unknown parent, say), but for the skew of the SDK's clock (each
    // span converts its performance clock to wall time; Date.now's 1 ms granularity, and on a loaded machine the two
    // clocks drift apart by tens of milliseconds over a long-lived worker).
    const warnings = t.spans.flatMap((x) => (x.warnings ?? []).map((w) => `${x.operationName}: ${w}`));
    expect(
      warnings.filter(
        (w) => !/clock skew adjustment disabled; not applying calculated delta of -?\d+(\.\d+)?(µs|ms)$/.test(w),
      ),
    ).toEqual([]);
    const root = expectTree(t);
    // The client's start is the root: `tether run` carried its context to the workflow.
    expect(root.operationName).toBe('StartWorkflow:agentWorkflow');
    const runSpan = one(t, 'RunWorkflow:agentWorkflow');
    expect(parentOf(runSpan)).toBe(root.spanID);
    const spanById = new Map(t.spans.map((s) => [s.spanID, s]));
    const parentName = (s: JaegerSpan): string | undefined => spanById.get(parentOf(s) ?? '')?.operationName;

    const chats = byName(t, `chat ${MODEL}`);
    expect(chats).toHaveLength(2);
    for (const c of chats) {
      expect(parentName(c)).toBe('RunActivity:callModel');
      expect(tag(c, 'gen_ai.operation.name')).toBe('chat');
      expect(tag(c, 'gen_ai.provider.name')).toBe('openai');
      expect(tag(c, 'gen_ai.request.model')).toBe(MODEL);
      expect(tag(c, 'server.address')).toBe('127.0.0.1');
      // Capture is off: no message content leaves the worker.
      expect(tag(c, 'gen_ai.input.messages')).toBeUndefined();
      expect(tag(c, 'gen_ai.output.messages')).toBeUndefined();
    }
    const usage = chats
      .map((c) => [tag(c, 'gen_ai.usage.input_tokens'), tag(c, 'gen_ai.usage.output_tokens')])
      .sort((a, b) => Number(a[0]) - Number(b[0]));
    expect(usage).toEqual([
      [120, 30],
      [200, 7],
    ]);
    expect(chats.map((c) => tag(c, 'gen_ai.response.finish_reasons')).sort()).toEqual(['["stop"]', '["tool_calls"]']);
    // Each RunActivity continues its StartActivity, which the run's span scheduled.
    for (const a of t.spans.filter((s) => s.operationName.startsWith('RunActivity:'))) {
      expect(parentName(a)).toBe(a.operationName.replace('RunActivity:', 'StartActivity:'));
      expect(parentName(spanById.get(parentOf(a)!)!)).toBe('RunWorkflow:agentWorkflow');
    }

    const terminal = one(t, 'execute_tool terminal');
    expect(parentName(terminal)).toMatch(/^RunActivity:run(Gated)?Tool$/);
    expect(terminal.tags).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ key: 'gen_ai.operation.name', value: 'execute_tool' }),
        expect.objectContaining({ key: 'gen_ai.tool.name', value: 'terminal' }),
        expect.objectContaining({ key: 'gen_ai.tool.call.id', value: 'call_term' }),
        expect.objectContaining({ key: 'tether.tool.outcome', value: 'ok' }),
      ]),
    );
    const reads = byName(t, 'execute_tool read_file');
    expect(reads.map((r) => [tag(r, 'gen_ai.tool.call.id'), tag(r, 'tether.tool.outcome')]).sort()).toEqual([
      ['call_outside', 'error'],
      ['call_read', 'ok'],
    ]);
    for (const r of reads) expect(parentName(r)).toMatch(/^RunActivity:run(Gated)?Tool$/);
    // Tool spans lie within their activity's span (give or take the 1 ms the SDK's clocks may differ by).
    for (const s of [terminal, ...reads]) {
      const activity = spanById.get(parentOf(s)!)!;
      expect(s.startTime).toBeGreaterThanOrEqual(activity.startTime - 1000);
      expect(s.startTime + s.duration).toBeLessThanOrEqual(activity.startTime + activity.duration + 1000);
    }
    const processes = Object.values(t.processes);
    expect(processes.map((p) => p.serviceName)).toContain(service);
    expect(processes[0]!.tags).toEqual(
      expect.arrayContaining([expect.objectContaining({ key: 'deployment.environment', value: 'test' })]),
    );
  }, 240_000);

  it('the metrics endpoint counts that run: tool calls, tokens, model calls, refusals, core worker metrics', async () => {
    const m = await scrape(metrics);
    expect(value(m, 'tether_tool_calls_total', { tool: 'terminal', outcome: 'ok' })).toBe(1);
    expect(value(m, 'tether_tool_calls_total', { tool: 'read_file', outcome: 'ok' })).toBe(1);
    expect(value(m, 'tether_tool_calls_total', { tool: 'read_file', outcome: 'error' })).toBe(1);
    expect(value(m, 'tether_tool_call_duration_seconds_count', { tool: 'read_file' })).toBe(2);
    expect(value(m, 'tether_tool_call_duration_seconds_bucket', { tool: 'terminal', le: '+Inf' })).toBe(1);
    expect(value(m, 'tether_model_tokens_total', { model: MODEL, kind: 'input' })).toBe(320);
    expect(value(m, 'tether_model_tokens_total', { model: MODEL, kind: 'output' })).toBe(37);
    expect(value(m, 'tether_model_calls_total', { model: MODEL, outcome: 'ok' })).toBe(2);
    expect(value(m, 'tether_model_call_duration_seconds_count', { model: MODEL })).toBe(2);
    expect(value(m, 'tether_refusals_total', { kind: 'sandbox' })).toBe(1);
    expect(value(m, 'tether_refusals_total', { kind: 'egress' })).toBe(1);
    expect(stand?.hits(BLOCKED)).toBe(0);
    expect(m.types.get('tether_tool_calls_total')).toBe('counter');
    expect(m.types.get('tether_model_call_duration_seconds')).toBe('histogram');
    // Temporal core's own worker metrics, on the same endpoint.
    expect(value(m, 'temporal_workflow_completed_total')).toBeGreaterThanOrEqual(1);
    expect(value(m, 'temporal_activity_execution_latency_count')).toBeGreaterThanOrEqual(5);
  });

  it('a run that waits for an approval shows the wait: a span with who decided, the pending gauge, the wait histogram', async () => {
    const terminalBefore = value(await scrape(metrics), 'tether_tool_calls_total', { tool: 'terminal', outcome: 'ok' });
    const started = await runCli(['run', '--detach', '--json', '--no-worker', '--cwd', cwd, 'push it'], { cwd, env });
    const { workflowId } = JSON.parse(started.stdout) as { workflowId: string };
    const handle = suite.client().workflow.getHandle(workflowId);
    let pending: AgentState['pendingApprovals'] = [];
    await until('the run to ask for an approval', async () => {
      pending = (await handle.query<AgentState>('state')).pendingApprovals;
      return pending.length === 1;
    });
    await until(
      'the pending gauge to show it',
      async () => value(await scrape(metrics), 'tether_approvals_pending') === 1,
    );
    const approved = await runCli(['approve', workflowId, pending[0]!.approvalId], { cwd, env });
    expect(approved.code).toBe(0);
    await handle.result();
    // A run a traced worker made, for test/replay.test.ts (RECORD_HISTORIES=1 records it as a new file).
    recordHistory(inject('temporalAddress'), workflowId, 'approval-traced');

    const m = await scrape(metrics);
    expect(value(m, 'tether_approvals_pending')).toBe(0);
    expect(value(m, 'tether_approval_wait_seconds_count', { outcome: 'approved' })).toBe(1);
    // The approved push ran.
    expect(value(m, 'tether_tool_calls_total', { tool: 'terminal', outcome: 'ok' })).toBe((terminalBefore ?? 0) + 1);

    const t = await traceOf(jaeger, service, workflowId, ['RunWorkflow:agentWorkflow', 'approval terminal']);
    expectTree(t);
    const wait = one(t, 'approval terminal');
    const runSpan = one(t, 'RunWorkflow:agentWorkflow');
    expect(parentOf(wait)).toBe(runSpan.spanID);
    expect(tag(wait, 'tether.approval.id')).toBe(pending[0]!.approvalId);
    expect(tag(wait, 'tether.approval.choice')).toBe('once');
    expect(tag(wait, 'tether.approval.source')).toBe('person');
    expect(tag(wait, 'tether.approval.decided_by')).toBe('cli');
    expect(tag(wait, 'gen_ai.tool.call.id')).toBe('call_push');
    expect(Number(tag(wait, 'tether.approval.wait_seconds'))).toBeCloseTo(wait.duration / 1e6, 2);
    // The decision (an update from `tether approve`) makes no trace of its own: every trace is a run's.
    for (const other of await jaeger.traces(service))
      expect(other.spans.map((x) => x.operationName)).toContain('RunWorkflow:agentWorkflow');
    // The approved command ran after the wait, under its own activity.
    const push = one(t, 'execute_tool terminal');
    expect(push.startTime).toBeGreaterThanOrEqual(wait.startTime + wait.duration);
  }, 240_000);

  it('over gRPC with OTEL_EXPORTER_OTLP_PROTOCOL=grpc: the start of a run reaches Jaeger', async () => {
    const grpcService = `${service}-grpc`;
    const started = await runCli(['run', '--detach', '--json', '--no-worker', '--cwd', cwd, 'wait here'], {
      cwd,
      env: {
        ...env,
        // No worker polls this queue: only `tether run` exports, over gRPC, as it exits.
        TETHER_TASK_QUEUE: `${env.TETHER_TASK_QUEUE}-nobody`,
        OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpGrpc,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
        OTEL_SERVICE_NAME: grpcService,
      },
    });
    const { workflowId } = JSON.parse(started.stdout) as { workflowId: string };
    try {
      await until('the start span, sent over gRPC', async () =>
        (await jaeger.traces(grpcService)).some((t) =>
          t.spans.some(
            (x) => x.operationName === 'StartWorkflow:agentWorkflow' && tag(x, 'temporalWorkflowId') === workflowId,
          ),
        ),
      );
    } finally {
      await suite.client().workflow.getHandle(workflowId).terminate('test done');
    }
  }, 120_000);

  it.runIf(uiAssets !== undefined)(
    'the first run in Jaeger UI (docs/images/jaeger-trace.png)',
    async () => {
      expect(firstTrace).not.toBe('');
      const executablePath = findBrowser(undefined);
      if (!executablePath) throw new Error("no Chromium: install Debian's chromium");
      const browser = await chromium.launch({
        executablePath,
        headless: true,
        chromiumSandbox: process.getuid?.() !== 0,
      });
      try {
        const page = await browser.newPage({ viewport: { width: 1500, height: 1000 } });
        await page.goto(`${jaeger.queryUrl}/trace/${firstTrace}`);
        await page.getByText('RunWorkflow:agentWorkflow').first().waitFor();
        // Wider names column: the span names are the point of the picture.
        const divider = page.locator('[class*="VerticalResizer--dragger"]').first();
        const box = await divider.boundingBox().catch(() => null);
        if (box) {
          await page.mouse.move(box.x + box.width / 2, box.y + 10);
          await page.mouse.down();
          await page.mouse.move(620, box.y + 10, { steps: 5 });
          await page.mouse.up();
        }
        // The second model call's span, opened, with its attributes: tokens, finish reason, model, provider.
        await page.getByText(`chat ${MODEL}`).last().click();
        await page.getByText('Tags:').last().click();
        await page.getByText('gen_ai.usage.input_tokens').first().waitFor();
        await page.screenshot({ path: join(imagesDir, 'jaeger-trace.png'), fullPage: true });
      } finally {
        await browser.close();
      }
    },
    120_000,
  );
});
