// What `tether serve` (the approval gateway) refuses, and how: every bad request gets an HTTP answer with one line,
// the gateway never exits on a request, listen problems name the flag, and a replay is refused across restarts.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { signBody } from '../../src/approval/signature.js';
import type { AgentState } from '../../src/common/types.js';
import { runCli, until } from '../support/cli.js';
import { looksLikeACrash, startCli, type CliProcess } from '../support/cli-process.js';
import { startScriptedModel } from '../support/scripted-model.js';
import { workerEnv, workerProcessSuite } from '../support/worker-process.js';

const secret = 'a-gateway-test-secret-long-enough';
const { client, workers } = workerProcessSuite();
const gateways: CliProcess[] = [];
afterAll(async () => {
  for (const g of gateways) await g.kill();
});

function home(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tether-bad-gateway-'));
  writeFileSync(join(dir, 'config.yaml'), `approvals:\n  secret: ${secret}\n`);
  return dir;
}

async function startGateway(env: Record<string, string>): Promise<{ gateway: CliProcess; base: string }> {
  const gateway = startCli(['serve', '--port', '0'], { env: { TEMPORAL_ADDRESS: inject('temporalAddress'), ...env } });
  gateways.push(gateway);
  const m = await gateway.waitFor(/listening on (http:\/\/\S+)/, 'the gateway listening');
  return { gateway, base: m[1]! };
}

async function post(
  base: string,
  body: string,
  signature = signBody(secret, body),
): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${base}/approvals/decision`, {
    method: 'POST',
    body,
    headers: { 'x-tether-signature': signature },
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

const decision = (extra: Record<string, unknown> = {}): string =>
  JSON.stringify({
    workflowId: `no-such-run-${randomUUID()}`,
    approvalId: 'a-1',
    choice: 'once',
    timestamp: Date.now(),
    nonce: randomUUID(),
    ...extra,
  });

describe('tether serve refuses', () => {
  it('signed bodies that are JSON but not an object (null, a list, a number, a string): 400 with a line, and stays up', async () => {
    const { gateway, base } = await startGateway({ TETHER_HOME: home() });
    for (const [body, got] of [
      ['null', 'null'],
      ['[1,2,3]', 'an array'],
      ['42', 'number'],
      ['"approve"', 'string'],
    ] as const) {
      const res = await post(base, body);
      expect(res.status, body).toBe(400);
      expect(res.json.error).toBe(
        `body must be a JSON object with workflowId, approvalId, choice, timestamp and nonce (got ${got})`,
      );
    }
    expect(await post(base, decision({ reason: 42 }))).toMatchObject({
      status: 400,
      json: { error: 'must be strings when given: reason' },
    });
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect(gateway.child.exitCode).toBe(null);
    expect(looksLikeACrash(gateway.output())).toBe(false);
  });

  it('a body over the limit: 413 with a line, not a connection reset', async () => {
    const { gateway, base } = await startGateway({ TETHER_HOME: home() });
    const big = decision({ reason: 'x'.repeat(200 * 1024) });
    expect(await post(base, big)).toEqual({ status: 413, json: { error: 'body larger than 65536 bytes' } });
    const huge = decision({ reason: 'y'.repeat(4 * 1024 * 1024) });
    expect((await post(base, huge)).status).toBe(413);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect(gateway.child.exitCode).toBe(null);
  });

  it('a replayed decision after a restart of the gateway (the nonce book is on disk)', async () => {
    const env = { TETHER_HOME: home() };
    const first = await startGateway(env);
    const body = decision();
    // The run does not exist, but the signature and nonce were good: the nonce is used up.
    expect(await post(first.base, body)).toMatchObject({
      status: 404,
      json: { error: expect.stringMatching(/^no such run/) },
    });
    await first.gateway.kill('SIGINT');
    const second = await startGateway(env);
    expect(await post(second.base, body)).toMatchObject({
      status: 409,
      json: { error: expect.stringMatching(/^replayed: nonce/) },
    });
  });

  it('--port out of range, a port in use and an address this machine lacks: one line naming the flag', async () => {
    const env = { TETHER_HOME: home(), TEMPORAL_ADDRESS: inject('temporalAddress') };
    const cwd = tmpdir();
    const range = await runCli(['serve', '--port', '99999'], { cwd, env });
    expect(range.code).toBe(2);
    expect(range.stderr).toBe("tether: --port must be a TCP port from 0 to 65535 (0 picks a free one), got '99999'\n");

    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', () => r()));
    const port = (taken.address() as { port: number }).port;
    const inUse = await runCli(['serve', '--port', String(port)], { cwd, env }).finally(() => taken.close());
    expect(inUse.code).toBe(2);
    expect(inUse.stderr).toBe(
      `tether: cannot listen: --port ${port}: the port is in use on 127.0.0.1 (another tether serve? pick another port, or 0 for a free one)\n`,
    );
    // 192.0.2.1 is a documentation address (TEST-NET-1): binding to it fails locally, nothing is sent anywhere.
    const noHost = await runCli(['serve', '--host', '192.0.2.1', '--port', '0'], { cwd, env });
    expect(noHost.code).toBe(2);
    expect(noHost.stderr).toMatch(/^tether: cannot listen: --host 192\.0\.2\.1: this machine has no such address/);
    for (const r of [range, inUse, noHost]) expect(looksLikeACrash(r.stderr)).toBe(false);
  });

  it('to take `by` from the body as an identity: it is recorded as claimedBy, and by says "gateway"', async () => {
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-bad-gateway-run-')));
    const model = await startScriptedModel([
      { toolCalls: [{ name: 'terminal', arguments: { command: 'kubectl delete pod x 2>/dev/null; true' } }] },
      { content: 'done' },
    ]);
    try {
      const { env, taskQueue } = workerEnv(inject('temporalAddress'), model.url, 'bad-gateway');
      writeFileSync(join(env.TETHER_HOME!, 'config.yaml'), `approvals:\n  secret: ${secret}\n`);
      await workers.start(env);
      const { base } = await startGateway(env);
      const workflowId = `bad-gateway-${randomUUID()}`;
      const handle = await client().workflow.start('agentWorkflow', {
        taskQueue,
        workflowId,
        args: [{ task: 't', model: 'scripted', cwd }],
      });
      let s: AgentState | undefined;
      await until(
        'a pending approval',
        async () => (s = await handle.query<AgentState>('state')).pendingApprovals.length > 0,
        30_000,
      );
      const p = s!.pendingApprovals[0]!;
      const body = JSON.stringify({
        workflowId,
        approvalId: p.approvalId,
        choice: 'once',
        timestamp: Date.now(),
        nonce: randomUUID(),
        by: 'the-admin',
      });
      expect((await post(base, body)).status).toBe(200);
      await handle.result();
      const decided = (await handle.query<AgentState>('state')).approvals.decided;
      expect(decided).toHaveLength(1);
      expect(decided[0]).toMatchObject({ source: 'person', by: 'gateway', claimedBy: 'the-admin' });
    } finally {
      await model.close();
    }
  }, 120_000);
});
