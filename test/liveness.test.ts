// A worker that is alive keeps its calls, however long its event loop is held up; a dead one still loses them in
// seconds. The real worker, registry and heartbeat thread on the dev server; the event loop is held up by a tool that
// spins synchronously (what a starved or busy loop looks like to Temporal: no heartbeat from it).
import { appendFileSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, Worker, type ActivityInterceptorsFactory } from '@temporalio/worker';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parseConfig } from '../src/config/config.js';
import { registry } from '../src/registry/index.js';
import { Liveness, liveCall } from '../src/liveness/liveness.js';
import { callActivity } from '../src/common/activity-contract.js';
import { harness, type Harness } from './support/agent-harness.js';
import { startScriptedModel } from './support/scripted-model.js';
import { until } from './support/cli.js';
import { recordingLogger } from './support/recording-logger.js';

/** Holds the event loop for `ms` (a loaded machine's worst), writing a line before and after. */
function spin(ms: number, marker: string): string {
  appendFileSync(marker, 'start\n');
  const end = Date.now() + ms;
  while (Date.now() < end) {
    // nothing: the event loop is held
  }
  appendFileSync(marker, 'end\n');
  return JSON.stringify({ spun: ms });
}

beforeAll(() => {
  registry.register({
    name: 'hold_event_loop',
    toolset: 'test-liveness',
    description: 'holds the event loop',
    schema: z.object({ ms: z.number(), marker: z.string() }),
    sideEffects: 'changes-world',
    handler: ({ ms, marker }) => spin(ms, marker),
  });
});
afterAll(() => registry.unregister('hold_event_loop'));

/** One run whose single call holds the event loop; what the model was told and what the history shows. */
async function holdRun(h: Harness, ms: number) {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-liveness-')));
  const marker = join(cwd, 'marker.txt');
  const model = await startScriptedModel([
    { toolCalls: [{ name: 'hold_event_loop', arguments: { ms, marker } }] },
    { content: 'done' },
  ]);
  const workflowId = `liveness-${randomUUID()}`;
  try {
    const result = await h.withWorker(model.url, () =>
      h.run({ task: 't', cwd, enabledToolsets: ['test-liveness'], limits: { heartbeatTimeoutSeconds: 2 } }, workflowId),
    );
    const told = model.requests[1]!.messages.find((m) => m.role === 'tool')!.content!;
    const events = (await h.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
    const attempts = events
      .map((e) => e.activityTaskStartedEventAttributes?.attempt)
      .filter((a): a is number => typeof a === 'number');
    const toolScheduled = events.filter(
      (e) => callActivity(e.activityTaskScheduledEventAttributes?.activityType?.name ?? '') === 'runTool',
    ).length;
    return { result, told: JSON.parse(told) as unknown, lines: readFileSync(marker, 'utf8'), attempts, toolScheduled };
  } finally {
    await model.close();
  }
}

describe('a busy worker keeps its calls', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness();
  });
  afterAll(() => h.close());

  it('a call whose event loop is held twice the heartbeat timeout completes once, never reported lost', async () => {
    const r = await holdRun(h, 4_000);
    expect(r.result).toMatchObject({ status: 'completed', answer: 'done' });
    expect(r.told).toEqual({ spun: 4_000 });
    expect(r.lines).toBe('start\nend\n');
    // The heartbeat thread spoke for it: the server never gave the attempt up.
    expect(r.attempts.every((a) => a === 1)).toBe(true);
    expect(r.toolScheduled).toBe(1);
  }, 60_000);
});

describe('a worker whose event loop stops answering is taken for wedged', () => {
  let h: Harness;
  beforeAll(async () => {
    // One tool slot: the retry waits on the server until the held call lets its slot go.
    h = await harness(parseConfig({ worker: { stall_seconds: 1, tool_calls: 1 } }));
  });
  afterAll(() => h.close());

  it('its call is given up by the server; the retry reaching it takes over what the call did', async () => {
    // Past worker.stall_seconds the thread stops speaking: the server gives attempt 1 up after the heartbeat timeout
    // and schedules attempt 2, which this worker takes once attempt 1 has finished (its own completion comes too late
    // for the server). Attempt 2 returns attempt 1's outcome instead of calling the command lost or running it again.
    const r = await holdRun(h, 7_000);
    expect(r.result).toMatchObject({ status: 'completed', answer: 'done' });
    expect(r.told).toEqual({ spun: 7_000 });
    expect(r.lines).toBe('start\nend\n');
    expect(r.attempts).toContain(2);
  }, 60_000);
});

describe('an attempt that reaches its code after the server gave it up', () => {
  let native: NativeConnection;
  let connection: Connection;
  beforeAll(async () => {
    native = await NativeConnection.connect({ address: inject('temporalAddress') });
    connection = await Connection.connect({ address: inject('temporalAddress') });
  });
  afterAll(async () => {
    await native.close();
    await connection.close();
  });

  it('runs nothing; the retry, on another worker, runs the call once', async () => {
    const address = inject('temporalAddress');
    const taskQueue = `liveness-${randomUUID()}`;
    const ran: string[] = [];
    const work = (who: string) => async (): Promise<string> => {
      const { attempt, base64TaskToken } = Context.current().info;
      ran.push(`${who} attempt ${attempt}${liveCall(base64TaskToken)?.earlierNeverRan ? ' (earlier never ran)' : ''}`);
      return `ran on ${who}`;
    };
    // What a starved event loop does to an attempt: its code starts seconds after the server handed it out.
    let reachedW1 = false;
    const lateStart: ActivityInterceptorsFactory = (ctx) => ({
      inbound: {
        execute: async (input, next) => {
          if (ctx.info.attempt === 1) {
            reachedW1 = true;
            await new Promise((r) => setTimeout(r, 3_000));
          }
          return next(input);
        },
      },
    });
    const settings = { address, namespace: 'default' };
    const first = new Liveness({ settings, stallMs: 30_000, log: recordingLogger() });
    const second = new Liveness({ settings, stallMs: 30_000, log: recordingLogger() });
    const bundle = await bundleWorkflowCode({
      workflowsPath: fileURLToPath(new URL('./support/liveness-workflow.ts', import.meta.url)),
      logger: undefined,
    });
    // One slot: while attempt 1 waits to start, attempt 2 can only go to the other worker.
    const w1 = await Worker.create({
      connection: native,
      taskQueue,
      workflowBundle: bundle,
      activities: { work: work('w1') },
      maxConcurrentActivityTaskExecutions: 1,
      interceptors: { activity: [lateStart, first.interceptor()] },
    });
    try {
      const result = await w1.runUntil(async () => {
        const handle = await new Client({ connection }).workflow.start('oneHeartbeatedCall', {
          taskQueue,
          workflowId: `late-${randomUUID()}`,
          args: [1_000],
        });
        await until('attempt 1 to reach w1', () => reachedW1);
        const w2 = await Worker.create({
          connection: native,
          taskQueue,
          activities: { work: work('w2') },
          // Two workers of one process on one queue must name different builds.
          workerDeploymentOptions: {
            version: { deploymentName: 'liveness', buildId: 'w2' },
            useWorkerVersioning: false,
          },
          interceptors: { activity: [second.interceptor()] },
        });
        return w2.runUntil(async () => {
          const out = await handle.result();
          // Attempt 1's code starts after the result: let it, and see that it runs nothing.
          await new Promise((r) => setTimeout(r, 3_500));
          return out;
        });
      });
      expect(result).toBe('ran on w2');
      expect(ran).toEqual(['w2 attempt 2']);
    } finally {
      first.close();
      second.close();
    }
  }, 60_000);
});
