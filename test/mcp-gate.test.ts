// MCP tools through the approval gate, in real runs (manual mode) against a real MCP server process over stdio: on a
// server not marked trusted, a tool that deletes or writes waits for a person (denied, it never runs; approved for
// the session, the same call runs again unasked and another does not), a read-only one does not wait; on a trusted
// server both run. The server starts with the allowlisted environment and its own `env`, never the worker's.
import { existsSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseConfig } from '../src/config/config.js';
import { closeTools } from '../src/worker.js';
import { harness, type Harness } from './support/agent-harness.js';
import { call, denied, runDenying } from './support/deny-all.js';

const server = join(import.meta.dirname, 'fixtures', 'mcp-notes-server.mjs');
const notes = (): string => realpathSync(mkdtempSync(join(tmpdir(), 'tether-mcp-notes-')));
const untrusted = notes();
const trusted = notes();
// The runs' own working directory: never the whole temporary directory, which a busy machine fills with gigabytes
// that each run's checkpoint and sandbox would have to cover.
const work = realpathSync(mkdtempSync(join(tmpdir(), 'tether-mcp-work-')));
let h: Harness;

beforeAll(async () => {
  process.env.OPENAI_API_KEY = 'sk-worker-secret-never-for-mcp';
  h = await harness(
    parseConfig({
      mcp_servers: {
        notes: { command: 'node', args: [server], env: { NOTES_DIR: untrusted } },
        mine: { command: 'node', args: [server], env: { NOTES_DIR: trusted }, trust: 'trusted' },
      },
    }),
  );
});
afterAll(async () => {
  await closeTools();
  await h.close();
});

const seed = (dir: string, ...names: string[]): void => {
  for (const n of names) writeFileSync(join(dir, n), `note ${n}\n`);
};

it('an untrusted server’s tool that deletes or writes asks; denied, nothing happens; a read-only tool runs', async () => {
  seed(untrusted, 'a', 'b');
  const { out, asked, result } = await runDenying(
    h,
    work,
    [
      call('mcp_notes_read_note', { name: 'a' }),
      call('mcp_notes_delete_note', { name: 'a' }),
      call('mcp_notes_append_note', { name: 'b', text: 'evil\u202e text\n' }),
      call('mcp_notes_env_names', {}),
    ],
    { idPrefix: 'mcp-gate', toolsets: ['mcp'] },
  );
  expect(result.status).toBe('completed');
  expect(out[0]).toEqual({ result: 'note a\n' });
  expect(out[1]).toEqual(denied);
  expect(out[2]).toEqual(denied);
  expect(existsSync(join(untrusted, 'a'))).toBe(true);
  expect(readFileSync(join(untrusted, 'b'), 'utf8')).toBe('note b\n');
  // Two asked, each showing the server, the tool, the arguments whole and the annotations.
  expect(asked.map((a) => a.tool)).toEqual(['mcp_notes_delete_note', 'mcp_notes_append_note']);
  expect(asked[0]!.findings.map((f) => f.rule)).toEqual(['untrusted-mcp-tool']);
  expect(asked[0]!.command).toContain("tool 'delete_note' of MCP server 'notes' (not trusted)");
  expect(asked[0]!.command).toContain('"name": "a"');
  expect(asked[0]!.command).toContain('annotations: {"readOnlyHint":false,"destructiveHint":true}');
  expect(asked[1]!.command).toContain('annotations: none');
  expect(asked[1]!.command).toContain('"text": "evil\u202e text\\n"');
  // A session approval covers that tool with those arguments only: command_allowlist never holds an MCP call.
  expect(asked[0]!.scope).toMatchObject({ alwaysNot: expect.any(String) });
  // The server has its own variables and the allowlisted ones, never the worker's secrets.
  const names = String(out[3]!.result).split(' ');
  expect(names).toContain('NOTES_DIR');
  expect(names).toContain('PATH');
  expect(names).not.toContain('OPENAI_API_KEY');
});

it('approved for the session, the same call runs again unasked; other arguments ask again', async () => {
  seed(untrusted, 'c', 'd');
  writeFileSync(join(untrusted, 'c'), '');
  const { out, asked } = await runDenying(
    h,
    work,
    [
      call('mcp_notes_append_note', { name: 'c', text: 'one\n' }),
      call('mcp_notes_append_note', { name: 'c', text: 'one\n' }),
      call('mcp_notes_append_note', { name: 'd', text: 'two\n' }),
    ],
    { idPrefix: 'mcp-session', toolsets: ['mcp'], decide: (p) => (p.command.includes('"c"') ? 'session' : 'deny') },
  );
  expect(asked).toHaveLength(2);
  expect(out[0]).toEqual({ result: 'appended to c' });
  expect(out[1]).toEqual({ result: 'appended to c' });
  expect(out[2]).toEqual(denied);
  expect(readFileSync(join(untrusted, 'c'), 'utf8')).toBe('one\none\n');
});

it('on a trusted server every tool runs without asking', async () => {
  seed(trusted, 'x', 'y');
  const { out, asked } = await runDenying(
    h,
    work,
    [call('mcp_mine_delete_note', { name: 'x' }), call('mcp_mine_append_note', { name: 'y', text: 'more\n' })],
    { idPrefix: 'mcp-trusted', toolsets: ['mcp'] },
  );
  expect(asked).toEqual([]);
  expect(out).toEqual([{ result: 'deleted x' }, { result: 'appended to y' }]);
  expect(existsSync(join(trusted, 'x'))).toBe(false);
});
