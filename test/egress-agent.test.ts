// The egress gate on the real worker (dev server, scripted model, bubblewrap sandbox): a host in neither
// egress.allow nor egress.deny is a pending approval `network: HOST:PORT` with the command that asked, decided like a
// command's; allow and deny decide without asking; session and always are remembered; nobody answering is a denial.
// Outside hosts are names mapped to one loopback stand-in by egress.resolve: no traffic leaves 127.0.0.1.
import { existsSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/config.js';
import type { AgentResult, AgentState } from '../src/common/types.js';
import type { PendingApproval } from '../src/common/approval-types.js';
import { harness, type Harness } from './support/agent-harness.js';
import { runCli, until } from './support/cli.js';
import { runDetail } from '../src/inbox/data.js';
import { createServer, type Server } from 'node:http';
import { recordHistory } from './support/history.js';
import { lastToolResults, startScriptedModel } from './support/scripted-model.js';
import { resolveAll, startStandIn, type StandIn } from './support/egress-stand-in.js';

let h: Harness;
let stand: StandIn;
/** The approvals webhook: every body it was sent. */
let webhook: { server: Server; url: string; bodies: { approval: PendingApproval }[] };
const configFile = join(mkdtempSync(join(tmpdir(), 'tether-egress-conf-')), 'config.yaml');
const NAMES = ['allowed', 'blocked', 'ask', 'ask1', 'ask2', 'always', 'gone'].map((n) => `${n}.example.test`);

beforeAll(async () => {
  process.env.TETHER_CONFIG = configFile;
  stand = await startStandIn();
  const bodies: { approval: PendingApproval }[] = [];
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      bodies.push(JSON.parse(text) as { approval: PendingApproval });
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  webhook = { server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`, bodies };
  h = await harness(
    parseConfig({
      approvals: { mode: 'manual', webhook_url: webhook.url },
      terminal: {
        backend: 'local',
        local: {
          sandbox: {
            egress: {
              allow: ['allowed.example.test'],
              deny: ['blocked.example.test'],
              resolve: resolveAll(NAMES, stand),
            },
          },
        },
      },
    }),
  );
});
afterAll(async () => {
  delete process.env.TETHER_CONFIG;
  await h.close();
  await stand.close();
  webhook.server.close();
});

const cli = (args: string[]) =>
  runCli(args, { cwd: tmpdir(), env: { TEMPORAL_ADDRESS: h.address, TETHER_TASK_QUEUE: h.taskQueue } });

const project = (): string => realpathSync(mkdtempSync(join(tmpdir(), 'tether-egress-')));
const state = (handle: WorkflowHandle): Promise<AgentState> => handle.query<AgentState>('state');
/** curl through the proxy the sandbox names in http_proxy; -f: an HTTP error (the proxy's 403) fails the command. */
const get = (host: string, path = '/'): string => `curl -fsS --max-time 60 http://${host}${path}`;

async function pendingNetwork(handle: WorkflowHandle, host: string): Promise<PendingApproval> {
  let found: PendingApproval | undefined;
  await until(
    `a pending network approval for ${host}`,
    async () => (found = (await state(handle)).pendingApprovals.find((p) => p.host === host)) !== undefined,
    30_000,
  );
  return found!;
}

async function start(modelUrl: string, cwd: string, extra: Record<string, unknown> = {}): Promise<WorkflowHandle> {
  void modelUrl;
  return h.client.workflow.start('agentWorkflow', {
    taskQueue: h.taskQueue,
    workflowId: `egress-${randomUUID()}`,
    args: [{ task: 't', model: 'scripted', cwd, ...extra }],
  });
}

describe('the egress gate in a real run', () => {
  it('nobody answering: the request never reaches the host and the command fails, with the reason', async () => {
    const cwd = project();
    const command = get('ask.example.test', '/secret');
    const model = await startScriptedModel([
      { toolCalls: [{ name: 'terminal', arguments: { command } }] },
      { content: 'no network' },
    ]);
    await h.withWorker(model.url, async () => {
      const handle = await start(model.url, cwd, { approvalTimeoutSeconds: 4 });
      const p = await pendingNetwork(handle, 'ask.example.test');
      // What a person is shown: the host, the port and the command that made the connection, bound to its call.
      expect(p).toMatchObject({ kind: 'network', tool: 'network', host: 'ask.example.test', port: 80, command });
      expect(p.callId).toBe('call_1_1');
      // The call whose command waits shows as awaiting approval.
      expect((await state(handle)).currentToolCalls).toMatchObject([{ id: 'call_1_1', status: 'awaiting_approval' }]);
      expect(p.findings[0]!.rule).toBe('network:ask.example.test:80');
      expect(p.findings[0]!.description).toMatch(/^network: ask\.example\.test:80 \(http\)/);
      expect(stand.hits('ask.example.test')).toBe(0);
      const result = (await handle.result()) as AgentResult;
      expect(result.network).toEqual([
        expect.objectContaining({ host: 'ask.example.test', port: 80, decision: 'refused', count: 1 }),
      ]);
      const s = await state(handle);
      expect(s.approvals.decided).toMatchObject([
        { approvalId: p.approvalId, kind: 'network', choice: 'deny', source: 'timeout', host: 'ask.example.test' },
      ]);
    });
    const [r] = lastToolResults(model) as { exit_code: number; output: string; sandbox?: string }[];
    expect(r!.exit_code).not.toBe(0);
    expect(r!.output).toMatch(/403/);
    expect(r!.sandbox).toMatch(/egress proxy refused: no one approved ask\.example\.test:80 within 4 s/);
    expect(stand.hits('ask.example.test')).toBe(0);
    expect(model.errors).toEqual([]);
    await model.close();
  }, 120_000);

  it('allow passes and deny refuses without asking; a session approval lets later requests to that host through, other hosts still ask; deny by a person refuses', async () => {
    const cwd = project();
    const first = `${get('allowed.example.test', '/a')}; ${get('blocked.example.test', '/b')}; echo end`;
    const second = get('ask1.example.test', '/1');
    const third = `${get('ask1.example.test', '/2')} && ${get('ask2.example.test', '/x')}`;
    const model = await startScriptedModel([
      { toolCalls: [{ name: 'terminal', arguments: { command: first } }] },
      { toolCalls: [{ name: 'terminal', arguments: { command: second } }] },
      { toolCalls: [{ name: 'terminal', arguments: { command: third } }] },
      { content: 'done' },
    ]);
    await h.withWorker(model.url, async () => {
      const handle = await start(model.url, cwd);
      const ask1 = await pendingNetwork(handle, 'ask1.example.test');
      expect(ask1).toMatchObject({ command: second, callId: 'call_2_1', port: 80 });
      // The first command asked nobody: allowed went through, blocked was refused.
      expect((await state(handle)).approvals.decided).toEqual([]);
      expect(stand.hits('ask1.example.test')).toBe(0);
      // The CLI lists it (from visibility) naming the host, and decides it.
      await until(
        'tether approvals lists the network approval',
        async () => (await cli(['approvals'])).stdout.includes(`${ask1.approvalId} · network`),
        30_000,
      );
      const listed = (await cli(['approvals'])).stdout;
      expect(listed).toContain(
        `  network: ask1.example.test:80\n  $ ${second}\n  [network:ask1.example.test:80] network: ask1.example.test:80 (http)`,
      );
      const approved = await cli(['approve', handle.workflowId, ask1.approvalId, '--scope', 'session']);
      expect(approved.stdout).toBe(`approved (session): ${handle.workflowId} ${ask1.approvalId}\n`);
      // The webhook was sent the whole approval, host and port included.
      expect(webhook.bodies.map((b) => b.approval)).toContainEqual(
        expect.objectContaining({ approvalId: ask1.approvalId, kind: 'network', host: 'ask1.example.test', port: 80 }),
      );
      const ask2 = await pendingNetwork(handle, 'ask2.example.test');
      expect(ask2).toMatchObject({ command: third, callId: 'call_3_1' });
      // ask1 was reached again by the third command without a second approval.
      expect(stand.hits('ask1.example.test')).toBe(2);
      expect((await state(handle)).pendingApprovals).toHaveLength(1);
      await handle.signal('approval', { approvalId: ask2.approvalId, choice: 'deny', reason: 'not that one' });
      const result = (await handle.result()) as AgentResult;
      recordHistory(h.address, handle.workflowId, 'egress-approvals');
      expect(result.status).toBe('completed');
      const s = await state(handle);
      expect(s.approvals.sessionRules).toContain('network:ask1.example.test:80');
      expect(s.approvals.decided.map((d) => [d.host, d.choice, d.source])).toEqual([
        ['ask1.example.test', 'session', 'person'],
        ['ask2.example.test', 'deny', 'person'],
      ]);
      const reached = Object.fromEntries((s.network ?? []).map((n) => [n.host, [n.decision, n.count]]));
      expect(reached).toEqual({
        'allowed.example.test': ['allowed', 1],
        'blocked.example.test': ['refused', 1],
        'ask1.example.test': ['allowed', 2],
        'ask2.example.test': ['refused', 1],
      });
      // tether status and the inbox's run page list the hosts.
      const status = (await cli(['status', handle.workflowId])).stdout;
      expect(status).toMatch(
        /\n  network:\n    allowed\.example\.test:80  allowed \(egress\.allow: allowed\.example\.test\) · 1 connection\(s\)\n/,
      );
      expect(status).toMatch(
        /    ask2\.example\.test:80  refused \(denied by a person: not that one\) · 1 connection\(s\)/,
      );
      const detail = await runDetail(h.client, handle.workflowId);
      expect(detail.network?.map((n) => n.host).sort()).toEqual(
        NAMES.filter((n) => /^(allowed|blocked|ask1|ask2)\./.test(n)).sort(),
      );
    });
    const results = lastToolResults(model) as { exit_code: number; output: string; sandbox?: string }[];
    expect(results[0]!.output).toMatch(/hello from allowed\.example\.test\/a/);
    expect(results[0]!.output).toMatch(/403/);
    expect(results[1]!.output).toBe('hello from ask1.example.test/1\n');
    expect(results[2]!.output).toMatch(/hello from ask1\.example\.test\/2/);
    expect(results[2]!.sandbox).toMatch(/refused: ask2\.example\.test:80: denied by a person: not that one/);
    expect([
      stand.hits('allowed.example.test'),
      stand.hits('blocked.example.test'),
      stand.hits('ask2.example.test'),
    ]).toEqual([1, 0, 0]);
    expect(model.errors).toEqual([]);
    await model.close();
  }, 120_000);

  it('always: the host joins command_allowlist and a later run reaches it without asking', async () => {
    const cwd = project();
    const command = get('always.example.test');
    const model = await startScriptedModel([
      { toolCalls: [{ name: 'terminal', arguments: { command } }] },
      { content: 'done' },
    ]);
    await h.withWorker(model.url, async () => {
      const handle = await start(model.url, cwd);
      const p = await pendingNetwork(handle, 'always.example.test');
      await handle.executeUpdate('decideApproval', {
        args: [{ approvalId: p.approvalId, choice: 'always', by: 'test' }],
      });
      await handle.result();
      expect(existsSync(configFile) && readFileSync(configFile, 'utf8')).toMatch(/network:always\.example\.test:80/);
      const again = await start(model.url, project());
      expect(((await again.result()) as AgentResult).network).toEqual([
        expect.objectContaining({
          host: 'always.example.test',
          decision: 'allowed',
          by: 'command_allowlist: network:always.example.test:80',
        }),
      ]);
      expect((await state(again)).approvals.decided).toEqual([]);
    });
    expect(stand.hits('always.example.test')).toBe(2);
    await model.close();
  }, 120_000);

  it('a connection that gives up while waiting withdraws its approval', async () => {
    const cwd = project();
    const model = await startScriptedModel([
      { toolCalls: [{ name: 'terminal', arguments: { command: 'curl -fsS --max-time 3 http://gone.example.test/' } }] },
      { content: 'done' },
    ]);
    await h.withWorker(model.url, async () => {
      const handle = await start(model.url, cwd);
      const p = await pendingNetwork(handle, 'gone.example.test');
      await handle.result();
      const s = await state(handle);
      expect(s.pendingApprovals).toEqual([]);
      expect(s.approvals.decided).toMatchObject([{ approvalId: p.approvalId, choice: 'deny', source: 'withdrawn' }]);
    });
    expect(stand.hits('gone.example.test')).toBe(0);
    await model.close();
  }, 120_000);
});
