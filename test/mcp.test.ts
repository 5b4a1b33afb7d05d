// Real MCP servers from npm (server-everything over stdio and streamable HTTP, server-filesystem over stdio).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/config.js';
import { McpManager } from '../src/mcp/manager.js';
import { ToolRegistry } from '../src/registry/registry.js';
import { resolveToolset } from '../src/toolsets/resolve.js';
import { freePort } from '../src/temporal/dev-server.js';
import { until } from './support/cli.js';
import { recordingLogger } from './support/recording-logger.js';

const require = createRequire(import.meta.url);
const everything = join(
  dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);
const filesystem = join(
  dirname(require.resolve('@modelcontextprotocol/server-filesystem/package.json')),
  'dist',
  'index.js',
);
const ctx = { taskId: 't', cwd: tmpdir() };
const managers: McpManager[] = [];
const children: ChildProcess[] = [];

async function load(servers: Record<string, unknown>) {
  const log = recordingLogger();
  const registry = new ToolRegistry(log);
  const manager = new McpManager(registry, log);
  managers.push(manager);
  const summary = await manager.load(parseConfig({ mcp_servers: servers }).mcp_servers);
  const call = async (name: string, args: object) =>
    JSON.parse(await registry.dispatch(name, JSON.stringify(args), ctx)) as Record<string, unknown>;
  return { registry, manager, summary, call, log };
}

async function httpServer(port: number, mode: 'streamableHttp' | 'sse' = 'streamableHttp'): Promise<ChildProcess> {
  const child = spawn('node', [everything, mode], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  await until('the HTTP MCP server to listen', () => /listening|running on port/.test(err), 30_000);
  return child;
}

afterAll(async () => {
  for (const m of managers) await m.closeAll();
  for (const c of children) c.kill('SIGKILL');
});

describe('MCP over stdio', () => {
  let stdio: Awaited<ReturnType<typeof load>>;
  beforeAll(async () => {
    stdio = await load({
      everything: { command: 'node', args: [everything, 'stdio'], timeout: 2 },
      broken: { command: 'tether-no-such-mcp-server' },
      off: { command: 'node', args: [everything, 'stdio'], enabled: false },
    });
  });

  it('lists tools as mcp_<server>_<tool> in toolset mcp-<server>, with the server schema and annotations', () => {
    const ev = stdio.summary.find((s) => s.name === 'everything')!;
    expect(ev.status).toBe('connected');
    expect(ev.tools).toEqual(expect.arrayContaining(['mcp_everything_echo', 'mcp_everything_get-sum']));
    const sum = stdio.registry.get('mcp_everything_get-sum')!;
    expect(sum).toMatchObject({ toolset: 'mcp-everything', sideEffects: 'read-only', parallelSafe: true });
    expect(sum.parameters).toMatchObject({
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
    });
    expect(resolveToolset('mcp', stdio.registry).has('mcp_everything_echo')).toBe(true);
  });

  it('logs and skips a server that fails to start, and leaves a disabled one alone', () => {
    expect(stdio.summary.find((s) => s.name === 'broken')).toMatchObject({ status: 'failed', tools: [] });
    expect(stdio.summary.find((s) => s.name === 'off')).toMatchObject({ status: 'disabled', tools: [] });
    expect(stdio.log.lines.some((l) => l.msg.includes("MCP server 'broken' failed to start"))).toBe(true);
  });

  it('calls tools through dispatch and returns JSON, errors included', async () => {
    expect(await stdio.call('mcp_everything_echo', { message: 'hello' })).toEqual({ result: 'Echo: hello' });
    expect(await stdio.call('mcp_everything_get-sum', { a: 2, b: 3 })).toEqual({ result: 'The sum of 2 and 3 is 5.' });
    expect((await stdio.call('mcp_everything_get-sum', { a: 'two', b: 3 })).error).toMatch(/Invalid arguments/);
  });

  it('cancels a call that outlives the server timeout', async () => {
    const r = await stdio.call('mcp_everything_trigger-long-running-operation', { duration: 10, steps: 5 });
    expect(String(r.error)).toMatch(/timed out/i);
  });

  it('reconnects on the next call after the server process dies', async () => {
    const conn = stdio.manager.connections.get('everything')!;
    const pid = conn.pid!;
    process.kill(pid, 'SIGKILL');
    await until('the connection to notice', () => conn.status === 'disconnected', 10_000);
    expect(await stdio.call('mcp_everything_echo', { message: 'again' })).toEqual({ result: 'Echo: again' });
    expect(conn.pid).not.toBe(pid);
  });

  it('filters tools with include and exclude', async () => {
    const inc = await load({ s: { command: 'node', args: [everything, 'stdio'], include: ['echo', 'get-sum'] } });
    expect(inc.summary[0]!.tools.sort()).toEqual(['mcp_s_echo', 'mcp_s_get-sum']);
    const exc = await load({ s: { command: 'node', args: [everything, 'stdio'], exclude: ['echo'] } });
    expect(exc.summary[0]!.tools).not.toContain('mcp_s_echo');
    expect(exc.summary[0]!.tools).toContain('mcp_s_get-sum');
    expect(exc.registry.get('mcp_s_echo')).toBeUndefined();
  });

  it('returns an isError result as a JSON error (server-filesystem)', async () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'tether-mcp-fs-')));
    writeFileSync(join(root, 'a.txt'), 'alpha');
    const fs = await load({ fs: { command: 'node', args: [filesystem, root] } });
    expect(fs.summary[0]!.status).toBe('connected');
    const ok = await fs.call('mcp_fs_read_text_file', { path: join(root, 'a.txt') });
    expect(String(ok.result)).toContain('alpha');
    const missing = await fs.call('mcp_fs_read_text_file', { path: join(root, 'missing.txt') });
    expect(Object.keys(missing)).toEqual(['error']);
    expect(String(missing.error)).toMatch(/ENOENT|no such file/i);
  });
});

describe('MCP over streamable HTTP', () => {
  it('lists and calls tools, and reconnects after the server restarts', async () => {
    const port = await freePort();
    const first = await httpServer(port);
    const http = await load({ web: { url: `http://127.0.0.1:${port}/mcp`, timeout: 5 } });
    expect(http.summary[0]).toMatchObject({ status: 'connected' });
    expect(await http.call('mcp_web_echo', { message: 'over http' })).toEqual({ result: 'Echo: over http' });
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    // While the server is down the call fails with a JSON error; once it is back, the next call reconnects.
    expect(Object.keys(await http.call('mcp_web_echo', { message: 'down' }))).toEqual(['error']);
    await httpServer(port);
    expect(await http.call('mcp_web_echo', { message: 'back' })).toEqual({ result: 'Echo: back' });
  });
});

describe('MCP over SSE (older servers)', () => {
  it('lists and calls tools', async () => {
    const port = await freePort();
    await httpServer(port, 'sse');
    const sse = await load({ legacy: { url: `http://127.0.0.1:${port}/sse`, transport: 'sse', include: ['echo'] } });
    expect(sse.summary[0]).toMatchObject({ status: 'connected', tools: ['mcp_legacy_echo'] });
    expect(await sse.call('mcp_legacy_echo', { message: 'old style' })).toEqual({ result: 'Echo: old style' });
  });
});
