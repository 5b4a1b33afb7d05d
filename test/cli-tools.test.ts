// The built `tether` command, run as a user runs it: compiled output, real discovery, exit codes.
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
    expect(tools.map((t) => t.name).sort()).toEqual(
      ['delegate_task', 'memory', 'patch', 'read_file', 'search_files', 'session_search', 'terminal', 'todo', 'write_file'],
    );
    expect(tools.find((t) => t.name === 'todo')).toMatchObject({ toolset: 'todo', handledBy: 'agent-loop' });
    expect(tools.find((t) => t.name === 'terminal')).toMatchObject({ toolset: 'terminal', available: true });
  });

  it('filters by toolsets, legacy names included', async () => {
    const r = await tether('tools', '--toolsets', 'file_tools,terminal', '--disable', 'terminal', '--json');
    expect((JSON.parse(r.stdout) as { name: string }[]).map((t) => t.name).sort()).toEqual(['patch', 'read_file', 'search_files', 'write_file']);
  });

  it('fails with a non-zero exit code and a clear message on an unknown toolset', async () => {
    const r = await tether('tools', '--toolsets', 'nope');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown toolset 'nope'");
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
