// What `tether run` and `tether attach` tell a person, through the real CLI without a terminal: the header names the
// model endpoint of the worker that took the run (as that worker reports it) and the queue; a run that waits for a
// person says so in one line with the command that decides, and again when it goes on; a model endpoint that refuses
// or never answers fails the run at its first call (one attempt, naming OPENAI_BASE_URL and the address), while a
// model that answered before keeps its retries.
import { createServer as createHttpServer } from 'node:http';
import { createServer as createTcpServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { temporal } from '@temporalio/proto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { runCli, until } from './support/cli.js';
import { startCli, type CliProcess } from './support/cli-process.js';
import { startScriptedModel } from './support/scripted-model.js';
import { workerEnv, workerProcessSuite } from './support/worker-process.js';

const { client, workers, models } = workerProcessSuite();
const processes: CliProcess[] = [];
const servers: Server[] = [];
afterAll(async () => {
  for (const p of processes) await p.kill();
  for (const s of servers) await new Promise((r) => s.close(r));
});

const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-says-')));
const freshHome = (): string => mkdtempSync(join(tmpdir(), 'tether-says-home-'));

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const history = async (workflowId: string): Promise<HistoryEvent[]> =>
  (await client().workflow.getHandle(workflowId).fetchHistory()).events ?? [];

/** The callModel activity's attempts and how the last one failed, from the run's history. */
function modelAttempts(events: HistoryEvent[]): { attempts: number[]; failure?: string; type?: string } {
  const scheduled = new Set(
    events
      .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel')
      .map((e) => Number(e.eventId)),
  );
  const attempts = events
    .filter((e) => scheduled.has(Number(e.activityTaskStartedEventAttributes?.scheduledEventId)))
    .map((e) => e.activityTaskStartedEventAttributes!.attempt ?? 0);
  const failed = events.find((e) => scheduled.has(Number(e.activityTaskFailedEventAttributes?.scheduledEventId)))
    ?.activityTaskFailedEventAttributes?.failure;
  return {
    attempts,
    failure: failed?.message ?? undefined,
    type: failed?.applicationFailureInfo?.type ?? undefined,
  };
}

describe('a run that waits for a person, without a terminal', () => {
  it("says so in one line with the command that decides, and when it goes on; the header names the worker's endpoint", async () => {
    const model = await startScriptedModel([
      { toolCalls: [{ name: 'terminal', arguments: { command: 'git push --force origin main' } }] },
      { content: 'pushed' },
    ]);
    models.push(model);
    const w = workerEnv(inject('temporalAddress'), model.url, 'says');
    await workers.start(w.env);
    // The client's own endpoint is another: the header must name the worker's, as the worker reports it.
    const env = { ...w.env, OPENAI_BASE_URL: 'http://127.0.0.1:9/client-side/v1' };
    const run = startCli(['run', '--no-worker', 'push it'], { cwd, env });
    processes.push(run);
    const header = (await run.waitFor(/^tether · .*\n/m, 'the header'))[0];
    expect(header).toContain(`at ${model.url} (OPENAI_BASE_URL), as the worker that took the run reports it`);
    expect(header).not.toContain('client-side');
    expect(header).toContain(`queue ${w.taskQueue} (TETHER_TASK_QUEUE)`);
    const workflowId = /tether · (tether-[0-9a-z-]+) ·/.exec(header)![1]!;
    const waiting = await run.waitFor(/⏸ waiting for a person: approval (ap-[0-9a-f]+) .*\n/, 'the waiting line');
    const approvalId = waiting[1]!;
    expect(waiting[0]).toContain(`approve with: tether approve ${workflowId} ${approvalId}`);
    expect(run.output().match(/⏸ waiting for a person/g)).toHaveLength(1);

    // attach, from another terminal: how long it has run, where it is, the same waiting line, how to stop following.
    const attach = startCli(['attach', workflowId], { cwd, env });
    processes.push(attach);
    await attach.waitFor(/⏸ waiting for a person: approval ap-/, "attach's waiting line");
    expect(attach.output()).toMatch(
      new RegExp(
        `^attached to ${workflowId} · running for \\d+(s|m \\d+s) · turn 1 · 1 tool calls · \\d+ tokens · queue ${w.taskQueue}\\n`,
      ),
    );
    expect(attach.output()).toContain('(Ctrl-C stops following; the run goes on)');

    expect((await runCli(['approve', workflowId, approvalId], { cwd, env })).code).toBe(0);
    for (const p of [run, attach]) {
      await p.waitFor(new RegExp(`▶ going on: approval ${approvalId} approved \\(once\\) by cli`), 'the going-on line');
      expect((await p.exited()).code).toBe(0);
      expect(p.output()).toContain('pushed\n');
    }
  }, 300_000);

  it('Ctrl-C on attach stops following, in words, and the run goes on', async () => {
    const model = await startScriptedModel([
      { toolCalls: [{ name: 'terminal', arguments: { command: 'git push --force origin main' } }] },
      { content: 'pushed' },
    ]);
    models.push(model);
    const w = workerEnv(inject('temporalAddress'), model.url, 'says-attach');
    await workers.start(w.env);
    const started = await runCli(['run', '--detach', 'push it'], { cwd, env: w.env });
    const workflowId = started.stdout.trim();
    const attach = startCli(['attach', workflowId], { cwd, env: w.env });
    processes.push(attach);
    await attach.waitFor(/⏸ waiting for a person/, 'the waiting line');
    attach.child.kill('SIGINT');
    expect((await attach.exited()).code).toBe(130);
    expect(attach.output()).toContain(
      `Stopped following; the run goes on. Follow it again with: tether attach ${workflowId}`,
    );
    expect((await client().workflow.getHandle(workflowId).describe()).status.name).toBe('RUNNING');
    const cancel = await runCli(['cancel', workflowId], { cwd, env: w.env });
    expect(cancel.stdout).toMatch(new RegExp(`^${workflowId} cancelled: no tool call was running\\n`));
  }, 300_000);
});

describe('a model endpoint that does not answer', () => {
  const failsAtOnce = async (baseUrl: string, why: RegExp): Promise<void> => {
    const env = { TEMPORAL_ADDRESS: inject('temporalAddress'), TETHER_HOME: freshHome(), OPENAI_BASE_URL: baseUrl };
    const r = await runCli(['run', '--json', 'say hi'], { cwd, env });
    expect(r.code, r.stderr).toBe(1);
    const out = JSON.parse(r.stdout) as { workflowId: string; status: string; error: string };
    expect(out.status).toBe('failed');
    expect(out.error).toContain(`The model endpoint ${baseUrl} (OPENAI_BASE_URL) does not answer`);
    expect(out.error).toMatch(why);
    // One attempt, failed for good: not minutes of retries.
    const calls = modelAttempts(await history(out.workflowId));
    expect(calls.attempts).toEqual([1]);
    expect(calls.type).toBe('Model.Unreachable');
  };

  it('that refuses connections fails the run at its first call, naming OPENAI_BASE_URL and the address', async () => {
    const closed = createTcpServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    await failsAtOnce(`http://127.0.0.1:${port}/v1`, /connection was refused \(ECONNREFUSED\)/);
  }, 180_000);

  it('that accepts connections but never answers fails the same way', async () => {
    const sockets: Socket[] = [];
    const silent = createTcpServer((s) => sockets.push(s));
    servers.push(silent);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/v1`;
    try {
      await failsAtOnce(url, /accepts connections but sent no HTTP answer/);
    } finally {
      for (const s of sockets) s.destroy();
    }
  }, 180_000);

  it('that answered before and then went away is retried as before (the run waits for it)', async () => {
    // Answers one chat completion (a tool call), then stops listening.
    const server = createHttpServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            id: 'c1',
            object: 'chat.completion',
            created: 0,
            model: 'm',
            choices: [
              {
                index: 0,
                finish_reason: 'tool_calls',
                message: {
                  role: 'assistant',
                  content: null,
                  tool_calls: [
                    { id: 'call_1', type: 'function', function: { name: 'terminal', arguments: '{"command":"true"}' } },
                  ],
                },
              },
            ],
            usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
          }),
          () => {
            server.close();
            server.closeAllConnections();
          },
        );
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    const w = workerEnv(inject('temporalAddress'), url, 'says-gone');
    await workers.start(w.env);
    const workflowId = (await runCli(['run', '--detach', 'do it'], { cwd, env: w.env })).stdout.trim();
    const handle = client().workflow.getHandle(workflowId);
    await until(
      'the second model call retried',
      async () => ((await handle.describe()).raw.pendingActivities ?? []).some((a) => (a.attempt ?? 0) >= 3),
      120_000,
    );
    expect((await handle.describe()).status.name).toBe('RUNNING');
    expect(modelAttempts(await history(workflowId)).type).toBeUndefined();
    await runCli(['cancel', workflowId], { cwd, env: w.env });
  }, 300_000);
});
