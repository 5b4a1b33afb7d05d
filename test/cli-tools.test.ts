// The built `tether` command, run as a user runs it: compiled output, real discovery, exit codes.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';

const root = fileURLToPath(new URL('..', import.meta.url));

const tether = (...args: string[]) => runCli(args, { cwd: root });

describe('tether tools', () => {
  it('lists every built-in tool from the compiled output as JSON', async () => {
    const r = await tether('tools', '--json');
    expect(r.code).toBe(0);
    const tools = JSON.parse(r.stdout) as { name: string; toolset: string; available: boolean; handledBy: string }[];
    expect(tools.map((t) => t.name).sort()).toEqual([
      'browser_back',
      'browser_click',
      'browser_close',
      'browser_navigate',
      'browser_screenshot',
      'browser_scroll',
      'browser_snapshot',
      'browser_type',
      'clarify',
      'delegate_task',
      'execute_code',
      'image_generate',
      'memory',
      'patch',
      'process',
      'read_file',
      'search_files',
      'session_search',
      'terminal',
      'todo',
      'vision_analyze',
      'web_extract',
      'web_search',
      'write_file',
    ]);
    // Tools whose keys are missing are listed, hidden, with the reason.
    expect(tools.find((t) => t.name === 'web_search')).toMatchObject({ toolset: 'web', available: false });
    expect(tools.find((t) => t.name === 'image_generate')).toMatchObject({ toolset: 'image_gen', available: false });
    expect(tools.find((t) => t.name === 'todo')).toMatchObject({ toolset: 'todo', handledBy: 'agent-loop' });
    expect(tools.find((t) => t.name === 'terminal')).toMatchObject({ toolset: 'terminal', available: true });
  });

  it('filters by toolsets, legacy names included', async () => {
    const r = await tether('tools', '--toolsets', 'file_tools,terminal', '--disable', 'terminal', '--json');
    expect((JSON.parse(r.stdout) as { name: string }[]).map((t) => t.name).sort()).toEqual([
      'patch',
      'read_file',
      'search_files',
      'write_file',
    ]);
  });

  it('fails with a non-zero exit code and a clear message on an unknown toolset', async () => {
    const r = await tether('tools', '--toolsets', 'nope');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown toolset 'nope'");
  });

  it('runs as `npx tether` (the bin is executable after the build)', async () => {
    const r = await new Promise<{ code: number; stdout: string }>((resolve) => {
      execFile('npx', ['--no-install', 'tether', '--version'], { cwd: root }, (err, stdout) =>
        resolve({ code: err ? 1 : 0, stdout }),
      );
    });
    expect(r).toEqual({ code: 0, stdout: '0.1.0\n' });
  });

  it('has --help on every subcommand and fails on an unknown one', async () => {
    for (const sub of ['tools', 'toolsets']) {
      const r = await tether(sub, '--help');
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`Usage: tether ${sub}`);
    }
    expect((await tether('no-such-command')).code).not.toBe(0);
  });
});

describe('tether tools and tether mcp list with MCP servers and plugins configured', () => {
  it('shows MCP tools with their toolset, plugin tools, and each server with its status', async () => {
    const everything = join(
      dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json')),
      'dist',
      'index.js',
    );
    const home = mkdtempSync(join(tmpdir(), 'tether-cli-mcp-'));
    writeFileSync(
      join(home, 'config.yaml'),
      `mcp_servers:\n  everything:\n    command: node\n    args: [${JSON.stringify(everything)}, stdio]\n    include: [echo]\n  gone:\n    command: tether-no-such-server\n`,
    );
    mkdirSync(join(home, 'plugins'));
    writeFileSync(
      join(home, 'plugins', 'hello.mjs'),
      "export function register(ctx) { ctx.registerTool({ name: 'plugin_hello', toolset: 'hello', description: 'hi', schema: { type: 'object' }, emoji: '👋', handler: () => '{}' }); }\n",
    );
    const env = { TETHER_HOME: home };
    const tools = await runCli(['tools', '--json'], { cwd: root, env });
    expect(tools.code).toBe(0);
    expect(tools.stderr).toContain("MCP server 'gone' was skipped");
    const rows = JSON.parse(tools.stdout) as { name: string; toolset: string }[];
    expect(rows).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'mcp_everything_echo', toolset: 'mcp-everything' }),
        expect.objectContaining({ name: 'plugin_hello', toolset: 'hello' }),
      ]),
    );
    const servers = JSON.parse((await runCli(['mcp', 'list', '--json'], { cwd: root, env })).stdout) as {
      name: string;
      status: string;
      tools: string[];
    }[];
    expect(servers).toEqual([
      { name: 'everything', status: 'connected', tools: ['mcp_everything_echo'] },
      expect.objectContaining({ name: 'gone', status: 'failed', tools: [] }),
    ]);
  });
});
