// Unit tests of the egress gate's decisions, with an in-test resolver (no lookup leaves this process) and an
// in-test asker standing for the run (the real one, over Temporal, is tested in test/egress-agent.test.ts).
import { networkInterfaces } from 'node:os';
import { describe, expect, it } from 'vitest';
import type { EgressAnswer, EgressRequest } from '../../common/egress-types.js';
import { refusedAddress } from './addresses.js';
import { EgressGate, type EgressAsker } from './gate.js';
import { EgressSchema } from './settings.js';
import { target, type Target } from './target.js';

const t = (host: string, port = 443): Target => target(host, port) as Target;
const never = new AbortController().signal;

describe('addresses the proxy never reaches', () => {
  it.each([
    '127.0.0.1',
    '127.53.0.1',
    '0.0.0.0',
    '169.254.169.254',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::127.0.0.1',
    'fe80::1',
    'ff02::1',
    'fd00:ec2::254',
    // NAT64, 6to4 and Teredo forms of loopback and link-local
    '64:ff9b::7f00:1',
    '64:ff9b::127.0.0.1',
    '64:ff9b::a9fe:a9fe',
    '2002:7f00:1::1',
    '2001:0:7f00:1::',
    '2001:0:4136:e378:8000:63bf:80ff:fffe',
    '::ffff:0:7f00:1',
    '64:ff9b:1::7f00:1',
  ])('%s', (a) => expect(refusedAddress(a)).toBeDefined());

  it('a translated or tunnelled form of an address it may reach is not refused for its form', () => {
    expect(refusedAddress('64:ff9b::cb00:7109')).toBeUndefined(); // 203.0.113.9
    expect(refusedAddress('2002:cb00:7109::1')).toBeUndefined();
  });

  it("this machine's own interface addresses, IPv4-mapped too; not other private or public ones", () => {
    const own = Object.values(networkInterfaces())
      .flat()
      .find((i) => i && i.family === 'IPv4' && !i.internal)?.address;
    if (own) {
      expect(refusedAddress(own)).toMatch(/this machine/);
      expect(refusedAddress(`::ffff:${own}`)).toBeDefined();
    }
    expect(refusedAddress('203.0.113.9')).toBeUndefined();
    expect(refusedAddress('10.200.0.1')).toBeUndefined();
  });
});

describe('the egress gate', () => {
  function gate(policy: unknown, asker?: EgressAsker): EgressGate {
    const g = new EgressGate();
    g.configure({
      policy: EgressSchema.parse(policy),
      resolver: async (name) =>
        ({
          'blocked.example': ['203.0.113.7'],
          // A rebinding answer: a public address beside this machine's (or, asked again, only this machine's).
          'rebind.example': ['203.0.113.8', '127.0.0.1'],
          'metadata.example': ['169.254.169.254'],
          'mapped.example': ['::ffff:127.0.0.1'],
        })[name] ?? [],
      ...(asker ? { asker } : {}),
    });
    return g;
  }

  it('refuses this machine before any list, even an address the allow list names', async () => {
    const g = gate({ allow: ['127.0.0.1:*', '[::1]:*'] });
    for (const host of ['127.0.0.1', '[::1]', '[::ffff:127.0.0.1]'])
      expect(await g.decide(t(host), { command: '' }, 'connect', never)).toMatchObject({ allow: false, by: 'address' });
  });

  it('a host in deny reached by its address is refused too (deny names are resolved for that)', async () => {
    const g = gate({ deny: ['blocked.example'], allow: ['203.0.113.7'] });
    expect(await g.decide(t('203.0.113.7'), { command: '' }, 'socks', never)).toMatchObject({
      allow: false,
      by: 'egress.deny: blocked.example',
    });
    expect(await g.decide(t('blocked.example'), { command: '' }, 'socks', never)).toMatchObject({ allow: false });
  });

  it('a name that resolves to this machine (among other answers, or IPv4-mapped) is refused before any connection', async () => {
    const g = gate({ allow: ['*.example'] });
    for (const name of ['rebind.example', 'metadata.example', 'mapped.example']) {
      expect(await g.decide(t(name), { command: '' }, 'connect', never)).toMatchObject({ allow: true });
      expect(await g.connect(t(name))).toMatchObject({
        error: expect.stringMatching(/resolves to .* never reached through the proxy/),
        unreachable: false,
      });
    }
  });

  it('outside a run only allowed hosts pass; the rest are refused saying so', async () => {
    const g = gate({ allow: ['ok.example'] });
    expect(await g.decide(t('ok.example'), { command: '' }, 'connect', never)).toEqual({
      allow: true,
      by: 'egress.allow: ok.example',
    });
    expect(await g.decide(t('other.example'), { command: '' }, 'connect', never)).toMatchObject({
      allow: false,
      reason: expect.stringMatching(/no run to ask/),
    });
  });

  it('asks a run once per host:port while waiting; a remembered answer is not asked again; all waiters gone withdraws', async () => {
    const asked: EgressRequest[] = [];
    const withdrawn: string[] = [];
    let answer: (a: EgressAnswer) => void = () => undefined;
    const asker: EgressAsker = {
      ask: (_run, req) => {
        asked.push(req);
        return new Promise((r) => (answer = r));
      },
      reached: () => undefined,
      withdraw: (_run, id) => void withdrawn.push(id),
    };
    const g = gate({ allow: [] }, asker);
    const who = { command: 'curl https://api.example/', workflowId: 'run-1', callId: 'call_1' };
    const one = g.decide(t('api.example'), who, 'connect', never);
    const two = g.decide(t('api.example'), who, 'connect', never);
    await new Promise((r) => setTimeout(r, 10));
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ host: 'api.example', port: 443, command: who.command, callId: 'call_1' });
    answer({ allow: true, reason: 'approved by a person (session)', remember: true });
    expect(await one).toMatchObject({ allow: true });
    expect(await two).toMatchObject({ allow: true });
    expect(await g.decide(t('api.example'), who, 'connect', never)).toEqual({
      allow: true,
      by: 'approved for this run',
    });
    expect(asked).toHaveLength(1);
    // Another run asks for itself.
    void g.decide(t('api.example'), { ...who, workflowId: 'run-2' }, 'connect', never);
    await new Promise((r) => setTimeout(r, 10));
    expect(asked).toHaveLength(2);
    // Both connections waiting on one request go away: the run is told once.
    const a = new AbortController();
    const b = new AbortController();
    const c1 = g.decide(t('other.example'), who, 'connect', a.signal);
    const c2 = g.decide(t('other.example'), who, 'connect', b.signal);
    a.abort();
    expect(await c1).toMatchObject({ allow: false, by: 'gone' });
    expect(withdrawn).toEqual([]);
    b.abort();
    expect(await c2).toMatchObject({ allow: false });
    expect(withdrawn).toEqual([asked[2]!.requestId]);
  });

  it('a run asks about at most 200 hosts and reports at most 200: a command looping over names cannot fill its history', async () => {
    let asked = 0;
    let reported = 0;
    const asker: EgressAsker = {
      ask: async () => (asked++, { allow: false, reason: 'denied by a person' }),
      reached: () => void reported++,
      withdraw: () => undefined,
    };
    const g = gate({ allow: ['*.allowed.example'] }, asker);
    const who = { command: 'for i in $(seq 1000); do curl https://$i.example/; done', workflowId: 'run-loop' };
    for (let i = 0; i < 210; i += 1) await g.decide(t(`h${i}.example`), who, 'connect', never);
    expect(asked).toBe(200);
    expect(await g.decide(t('one-more.example'), who, 'connect', never)).toMatchObject({
      allow: false,
      by: 'too many hosts',
    });
    for (let i = 0; i < 300; i += 1) await g.decide(t(`h${i}.allowed.example`), who, 'connect', never);
    expect(reported).toBe(200);
  });
});
