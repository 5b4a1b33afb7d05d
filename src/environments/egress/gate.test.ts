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

describe('the egress gate, request by request', () => {
  const registry = t('registry.example');
  const write = (path: string | undefined, method = 'PUT') => ({
    method,
    url: `https://registry.example${path ?? '/a/../b'}`,
    path,
    access: 'write' as const,
    contentType: 'application/json',
    bodyBytes: 2,
    head: '{}',
  });

  function asking(answers: EgressAnswer[]): { asker: EgressAsker; asked: EgressRequest[] } {
    const asked: EgressRequest[] = [];
    return {
      asked,
      asker: {
        ask: async (_run, req) => (asked.push(req), answers.shift() ?? { allow: false, reason: 'denied by a person' }),
        reached: () => undefined,
        withdraw: () => undefined,
      },
    };
  }

  function gate(policy: unknown, asker?: EgressAsker, allowlisted: string[] = []): EgressGate {
    const g = new EgressGate();
    g.configure({ policy: EgressSchema.parse(policy), allowlisted: () => allowlisted, ...(asker ? { asker } : {}) });
    return g;
  }

  it('a host allowed for reading is allowed request by request; one allowed whole is not', async () => {
    const g = gate({ allow: [{ host: 'registry.example', access: 'read' }, 'open.example'] });
    expect(await g.decide(registry, { command: '' }, 'connect', never)).toEqual({
      allow: true,
      by: 'egress.allow: registry.example (read)',
      requests: true,
    });
    expect(await g.decide(t('open.example'), { command: '' }, 'connect', never)).toEqual({
      allow: true,
      by: 'egress.allow: open.example',
    });
    expect(g.requestCovered(registry, 'GET', 'read', '/pkg', {})).toBe('egress.allow: registry.example (read)');
    expect(g.requestCovered(registry, 'PUT', 'write', '/pkg', {})).toBeUndefined();
  });

  it('a write asks the run with what it sends, each request on its own; session covers that method at that path and below', async () => {
    const { asker, asked } = asking([
      { allow: true, reason: 'approved by a person (session)', remember: true },
      { allow: true, reason: 'approved by a person (once)' },
    ]);
    const g = gate({ allow: [{ host: 'registry.example', access: 'read' }] }, asker);
    const who = { command: 'npm publish', workflowId: 'run-w', callId: 'call_9' };
    expect(await g.decideRequest(registry, write('/demo'), who, 'connect', never)).toEqual({
      allow: true,
      by: 'approved by a person (session)',
    });
    expect(asked[0]).toMatchObject({
      host: 'registry.example',
      port: 443,
      command: 'npm publish',
      callId: 'call_9',
      request: {
        method: 'PUT',
        url: 'https://registry.example/demo',
        path: '/demo',
        contentType: 'application/json',
        bodyBytes: 2,
        head: '{}',
        why: 'registry.example:443 is allowed for reading only (egress.allow: registry.example (read))',
      },
    });
    // Covered now: the same method below the path; not another method, not a sibling path, not another run.
    expect(g.requestCovered(registry, 'PUT', 'write', '/demo/-rev/2', who)).toBe('approved for this run');
    expect(g.requestCovered(registry, 'POST', 'write', '/demo', who)).toBeUndefined();
    expect(g.requestCovered(registry, 'PUT', 'write', '/demo-evil', who)).toBeUndefined();
    expect(g.requestCovered(registry, 'PUT', 'write', '/demo', { workflowId: 'run-other' })).toBeUndefined();
    // A path not in normal form is never covered by a remembered rule, and is asked again with no path to cover.
    expect(await g.decideRequest(registry, write(undefined), who, 'connect', never)).toMatchObject({ allow: true });
    expect(asked[1]!.request).toMatchObject({ path: '', url: 'https://registry.example/a/../b' });
    expect(g.requestCovered(registry, 'PUT', 'write', '/b', who)).toBeUndefined();
  });

  it('command_allowlist covers a request by its rule, or the host whole; outside a run a write is refused saying why', async () => {
    const g = gate({ allow: [{ host: 'registry.example', access: 'read' }] }, undefined, [
      'network:registry.example:443 PUT /team/',
      'network:other.example:443',
    ]);
    expect(g.requestCovered(registry, 'PUT', 'write', '/team/x', {})).toBe(
      'command_allowlist: network:registry.example:443 PUT /team/',
    );
    expect(g.requestCovered(t('other.example'), 'DELETE', 'write', '/x', {})).toBe(
      'command_allowlist: network:other.example:443',
    );
    expect(await g.decideRequest(registry, write('/elsewhere'), { command: '' }, 'connect', never)).toMatchObject({
      allow: false,
      by: 'no run',
      reason: expect.stringMatching(/allowed for reading only .* no run to ask/),
    });
  });

  it('a passthrough host is decided whole: a read-only entry does not allow it', async () => {
    const g = gate({
      allow: [{ host: 'pinned.example', access: 'read' }, 'pinned-open.example'],
      passthrough: ['pinned.example', 'pinned-open.example'],
    });
    expect(await g.decide(t('pinned.example'), { command: '' }, 'connect', never)).toMatchObject({
      allow: false,
      by: 'no run',
    });
    expect(await g.decide(t('pinned-open.example'), { command: '' }, 'connect', never)).toEqual({
      allow: true,
      by: 'egress.allow: pinned-open.example',
    });
    expect(g.passthrough(t('pinned.example'))).toBe(true);
  });
});
