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

  describe('method and path rules (egress.allow by access and path) hold for the tools too', () => {
    const policy = {
      allow: ['defaults', { host: 'forge.example', access: 'read', paths: ['/org/'] }],
    };
    const get = async (call: CallNetwork, href: string) => {
      const url = new URL(href);
      const to = t(url.hostname);
      const d = await call.decide(to, `web_extract ${href}`);
      return d.allow ? call.decideGet(to, d, url, `web_extract ${href}`) : d;
    };

    it('a GET under an allowed path passes unasked; elsewhere on the host it asks, showing the request', async () => {
      const s = setUp([{ allow: false, reason: 'denied by a person' }], policy);
      const call = s.net();
      expect(await get(call, 'https://forge.example/org/repo')).toMatchObject({
        allow: true,
        by: 'egress.allow: forge.example (read /org/)',
      });
      expect(await get(call, 'https://registry.npmjs.org/left-pad')).toMatchObject({
        allow: true,
        by: 'egress.allow: registry.npmjs.org (read)',
      });
      expect(s.asked).toEqual([]);
      const other = await get(call, 'https://forge.example/elsewhere/x?q=1');
      expect(other).toMatchObject({ allow: false, by: 'denied by a person' });
      expect(s.asked).toHaveLength(1);
      expect(s.asked[0]).toMatchObject({
        host: 'forge.example',
        via: 'tool',
        command: 'web_extract https://forge.example/elsewhere/x?q=1',
        request: { method: 'GET', url: 'https://forge.example/elsewhere/x?q=1', path: '/elsewhere/x' },
      });
      expect(call.refusals.at(-1)).toContain('GET https://forge.example/elsewhere/x?q=1: denied by a person');
    });

    it('a path not in normal form is never covered by a path prefix; a dot-encoded escape is judged as sent', async () => {
      const s = setUp(
        [
          { allow: false, reason: 'denied by a person' },
          { allow: false, reason: 'denied by a person' },
        ],
        policy,
      );
      // An encoded / stays as it is (a server may decode it): no prefix covers it, and a session could not either.
      expect(await get(s.net(), 'https://forge.example/org/a%2f..%2f..%2fadmin')).toMatchObject({ allow: false });
      expect(s.asked[0]!.request).toMatchObject({ method: 'GET', path: '' });
      // The URL parser resolves %2e%2e before anything is sent: the request asked about is the one sent, /admin.
      expect(await get(s.net(), 'https://forge.example/org/%2e%2e/admin')).toMatchObject({ allow: false });
      expect(s.asked[1]!.request).toMatchObject({ method: 'GET', path: '/admin' });
    });

    it('where commands reach every host unread (network: direct), the tools are not asked about paths either', async () => {
      const s = setUp([], policy);
      const open = s.net({ kind: 'open', by: 'terminal.local.sandbox.network: direct' });
      expect(await get(open, 'https://forge.example/elsewhere')).toMatchObject({ allow: true });
      expect(s.asked).toEqual([]);
    });

    it('the browser, whose HTTPS is not read, is asked about a read-only host as a host, and told why', async () => {
      const s = setUp(
        [
          { allow: true, reason: 'approved by a person (once)' },
          { allow: true, reason: 'approved by a person (once)' },
        ],
        policy,
      );
      const call = s.net();
      expect(await call.open(t('registry.npmjs.org'), 'browser_click e3: registry.npmjs.org:443')).toMatchObject({
        refused: expect.any(String),
      });
      expect(s.asked).toHaveLength(1);
      expect(s.asked[0]!.request).toBeUndefined();
      expect(s.asked[0]!.command).toContain(
        'registry.npmjs.org:443 is allowed only request by request, by egress.allow: registry.npmjs.org (read)',
      );
      // The same call's fetch-level decision (which can judge each GET) is not the browser's.
      expect(await call.decide(t('registry.npmjs.org'), 'web_extract https://registry.npmjs.org/')).toMatchObject({
        allow: true,
        requests: true,
      });
      expect(s.asked).toHaveLength(1);
    });
  });
});
