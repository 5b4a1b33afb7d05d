// One tool call's network, decided by an egress gate whose run is an in-test asker (the real one, over Temporal, is
// tested through the worker in test/tool-egress-agent.test.ts). No name leaves this process.
import { describe, expect, it } from 'vitest';
import type { EgressAnswer, EgressRequest, NetworkReachReport } from '../common/egress-types.js';
import { EgressGate, type EgressAsker } from '../environments/egress/gate.js';
import { EgressSchema } from '../environments/egress/settings.js';
import { target, type Target } from '../environments/egress/target.js';
import { CallNetwork } from './call-network.js';
import type { ToolNetwork } from './network-mode.js';

const t = (host: string, port = 443): Target => target(host, port) as Target;

function setUp(answers: EgressAnswer[], policy: unknown = { allow: ['ok.example'], deny: ['no.example'] }) {
  const asked: EgressRequest[] = [];
  const reached: NetworkReachReport[] = [];
  const resolved: string[] = [];
  const asker: EgressAsker = {
    ask: async (_run, req) => {
      asked.push(req);
      return answers.shift() ?? { allow: false, reason: 'no answer left' };
    },
    reached: (_run, r) => void reached.push(r),
    withdraw: () => undefined,
  };
  const gate = new EgressGate();
  gate.configure({
    policy: EgressSchema.parse(policy),
    asker,
    resolver: async (name) => {
      resolved.push(name);
      return [];
    },
  });
  const net = (network: ToolNetwork = { kind: 'gate' }, program?: string) =>
    new CallNetwork(
      'web_extract',
      { taskId: 'task', workflowId: 'run-1', callId: 'call_1', ...(program ? { program } : {}) },
      network,
      undefined,
      gate,
    );
  return { asked, reached, resolved, net };
}

describe('CallNetwork', () => {
  it('asks the run with the call as shown, once per host:port for the whole call; a new call asks again', async () => {
    const s = setUp([
      { allow: true, reason: 'approved by a person (once)' },
      { allow: true, reason: 'approved by a person (once)' },
    ]);
    const call = s.net();
    expect(await call.decide(t('api.example'), 'web_extract https://api.example/a')).toMatchObject({ allow: true });
    expect(await call.decide(t('api.example'), 'web_extract https://api.example/b')).toMatchObject({ allow: true });
    expect(s.asked).toHaveLength(1);
    expect(s.asked[0]).toMatchObject({
      host: 'api.example',
      port: 443,
      via: 'tool',
      command: 'web_extract https://api.example/a',
      callId: 'call_1',
    });
    await s.net().decide(t('api.example'), 'web_extract https://api.example/c');
    expect(s.asked).toHaveLength(2);
    expect(s.resolved).toEqual([]);
  });

  it("a program's request shows the call, then the program", async () => {
    const s = setUp([{ allow: false, reason: 'denied by a person' }]);
    const call = s.net({ kind: 'gate' }, 'python program:\nprint(1)');
    expect(await call.decide(t('api.example'), 'web_extract https://api.example/')).toMatchObject({ allow: false });
    expect(s.asked[0]!.command).toBe(
      'web_extract https://api.example/\n(a tool request of the execute_code program below)\npython program:\nprint(1)',
    );
    expect(call.refusals).toEqual(['api.example:443: denied by a person']);
  });

  it('after the call ends, what its page still asks for is decided afresh: `once` does not outlive the call', async () => {
    const s = setUp([
      { allow: true, reason: 'approved by a person (once)' },
      { allow: false, reason: 'denied by a person' },
    ]);
    const call = s.net();
    await call.decide(t('api.example'), 'browser_navigate https://api.example/');
    call.end();
    expect(
      await call.decide(t('api.example'), 'browser_navigate https://api.example/ (a request of the page)'),
    ).toMatchObject({
      allow: false,
    });
    expect(s.asked).toHaveLength(2);
  });

  it('counts what waits for a person, for a navigation whose clock stops meanwhile', async () => {
    let answer: (a: EgressAnswer) => void = () => undefined;
    const s = setUp([]);
    const gate = new EgressGate();
    gate.configure({
      policy: EgressSchema.parse({}),
      asker: { ask: () => new Promise((r) => (answer = r)), reached: () => undefined, withdraw: () => undefined },
    });
    void s;
    const call = new CallNetwork(
      'browser_navigate',
      { taskId: 'x', workflowId: 'r' },
      { kind: 'gate' },
      undefined,
      gate,
    );
    const seen: number[] = [];
    call.watch((n) => seen.push(n));
    const pending = call.decide(t('slow.example'), 'browser_navigate https://slow.example/');
    await new Promise((r) => setTimeout(r, 10));
    expect(call.asking).toBe(1);
    answer({ allow: true, reason: 'approved by a person (once)' });
    await pending;
    expect(call.asking).toBe(0);
    expect(seen).toEqual([1, 0]);
  });

  it('network: false refuses without asking; direct or host allows what no list decides, recorded, and deny still holds', async () => {
    const s = setUp([]);
    const none = s.net({ kind: 'none', why: 'terminal.local.sandbox.network is false: no network' });
    expect(await none.decide(t('ok.example'), 'web_extract https://ok.example/')).toMatchObject({
      allow: false,
      reason: 'terminal.local.sandbox.network is false: no network',
    });
    const open = s.net({ kind: 'open', by: 'terminal.local.sandbox.network: direct' });
    expect(await open.decide(t('any.example'), 'web_extract https://any.example/')).toEqual({
      allow: true,
      by: 'terminal.local.sandbox.network: direct',
    });
    expect(await open.decide(t('no.example'), 'web_extract https://no.example/')).toMatchObject({
      allow: false,
      by: 'egress.deny: no.example',
    });
    expect(await open.decide(t('127.0.0.1', 80), 'web_extract http://127.0.0.1/')).toMatchObject({
      allow: false,
      by: 'address',
    });
    expect(s.asked).toEqual([]);
    expect(s.reached).toEqual([
      { host: 'any.example', port: 443, decision: 'allowed', by: 'terminal.local.sandbox.network: direct' },
      { host: 'no.example', port: 443, decision: 'refused', by: 'egress.deny: no.example' },
    ]);
  });

  it('a request that went away is not remembered as decided', async () => {
    const s = setUp([
      { allow: false, reason: 'the connection went away' },
      { allow: true, reason: 'approved by a person (once)' },
    ]);
    const gone = new AbortController();
    gone.abort();
    const call = s.net();
    expect(await call.decide(t('api.example'), 'x', gone.signal)).toMatchObject({ allow: false, by: 'gone' });
    expect(await call.decide(t('api.example'), 'x')).toMatchObject({ allow: true });
    expect(s.asked).toHaveLength(2);
  });
});
