// Outside attack on issue 41: an address this machine gets after the worker started (a VPN, a container bridge) is
// this machine from its first moment. With that address allowed (as a name an attacker controls could resolve to
// it), neither web_extract nor a command through the egress proxy reaches a service listening here. Found by the
// attack pass: the worker's list of its own addresses was kept for 10 s. Needs root (it adds a veth pair).
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseConfig } from '../src/config/config.js';
import { harness, type Harness } from './support/agent-harness.js';
import { call, runDenying } from './support/deny-all.js';
import type { Step } from './support/scripted-model.js';

const unavailable = process.getuid?.() !== 0 ? 'adding an interface needs root' : undefined;
const link = `tb41${Math.random().toString(36).slice(2, 6)}`;
const late = `10.197.${Math.floor(Math.random() * 200)}.1`;
const hits: string[] = [];
let h: Harness;
let local: Server;
let port = 0;

beforeAll(async () => {
  if (unavailable) return;
  local = createServer((req, res) => {
    hits.push(req.url ?? '');
    res.end(`this machine ${req.url}\n`);
  });
  await new Promise<void>((r) => local.listen(0, '0.0.0.0', () => r()));
  port = (local.address() as { port: number }).port;
  h = await harness(
    parseConfig({ terminal: { backend: 'local', local: { sandbox: { egress: { allow: [`${late}:*`] } } } } }),
  );
});
afterAll(async () => {
  try {
    execFileSync('ip', ['link', 'del', link], { stdio: 'ignore' });
  } catch {
    // never made
  }
  local?.close();
  await h?.close();
});

it.skipIf(unavailable !== undefined)(
  'an interface address added after the worker started is refused as this machine, by web_extract and the proxy',
  async () => {
    // The address comes up between two tool calls, after the worker has judged other addresses.
    const addLate: Step = () => {
      execFileSync('ip', ['link', 'add', link, 'type', 'veth', 'peer', 'name', `${link}p`]);
      execFileSync('ip', ['addr', 'add', `${late}/32`, 'dev', link]);
      execFileSync('ip', ['link', 'set', link, 'up']);
      return { toolCalls: [{ name: 'web_extract', arguments: { urls: [`http://${late}:${port}/tool`] } }] };
    };
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-b41-late-')));
    const { out } = await runDenying(
      h,
      cwd,
      [
        call('web_extract', { urls: [`http://192.0.2.1:${port}/warm`] }),
        addLate,
        call('terminal', { command: `curl -sS -m 5 http://${late}:${port}/cmd; echo end` }),
      ],
      { idPrefix: 'b41-late', toolsets: ['terminal', 'web'] },
    );
    expect(JSON.stringify(out[1])).toContain(`${late} is an address of this machine`);
    expect(out[2]).toMatchObject({ output: expect.stringContaining('end') });
    expect(hits).toEqual([]);
  },
  300_000,
);
