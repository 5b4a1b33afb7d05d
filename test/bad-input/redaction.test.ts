// What tether hides from the model: one redaction policy, applied at the registry's dispatch to every tool's output
// (files, search, terminal, programs, processes, MCP, web), with the same rules as terminal output. What it cannot
// hide is tested too, so the limit is stated and not a surprise.
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { discoverBuiltinTools } from '../../src/registry/discover.js';
import { registry } from '../../src/registry/index.js';
import { closeEnvironments } from '../../src/environments/current.js';

const TOKEN = 'tok-live-0123456789abcdef';
const FILE_ONLY = 'only-in-the-file-42x';
let cwd: string;
const ctx = (): { taskId: string; cwd: string } => ({ taskId: `redact-${Date.now()}`, cwd });

beforeAll(async () => {
  process.env.REDACTION_TEST_TOKEN = TOKEN;
  await discoverBuiltinTools();
  cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-redact-')));
  // A .env file: one value that is also in the environment, one that only the file has.
  writeFileSync(
    join(cwd, '.env'),
    `REDACTION_TEST_TOKEN=${TOKEN}\nSTRIPE_SECRET="${FILE_ONLY}"\nPLAIN=visible-value\n`,
  );
  registry.register({
    name: 'test_echo_secret',
    toolset: 'test',
    description: 'returns what it is given, as a tool from a plugin or an MCP server might',
    schema: z.object({ text: z.string() }),
    handler: async ({ text }) => JSON.stringify({ text }),
  });
  registry.register({
    name: 'test_throw_secret',
    toolset: 'test',
    description: 'fails with the secret in its message',
    schema: z.object({}),
    handler: async () => {
      throw new Error(`could not log in with ${TOKEN}`);
    },
  });
});
afterAll(async () => {
  registry.unregister('test_echo_secret');
  registry.unregister('test_throw_secret');
  delete process.env.REDACTION_TEST_TOKEN;
  await closeEnvironments();
});

describe('tool output reaching the model', () => {
  it.each([
    ['read_file', { path: '.env' }],
    ['search_files', { pattern: 'REDACTION|STRIPE', path: '.' }],
    ['terminal', { command: 'cat .env' }],
    ['test_echo_secret', { text: `REDACTION_TEST_TOKEN=${TOKEN} STRIPE_SECRET=${FILE_ONLY}` }],
  ])('%s hides secret values, named, and keeps the rest', async (tool, args) => {
    const out = await registry.dispatch(tool, args, ctx());
    expect(out).not.toContain(TOKEN);
    expect(out).not.toContain(FILE_ONLY);
    expect(out).toContain('[REDACTED REDACTION_TEST_TOKEN]');
    expect(out).toContain('[REDACTED STRIPE_SECRET]');
    expect(() => JSON.parse(out) as unknown).not.toThrow();
  });

  it("hides secrets in a failing tool's error message too", async () => {
    const out = await registry.dispatch('test_throw_secret', {}, ctx());
    expect(out).not.toContain(TOKEN);
    expect(JSON.parse(out)).toEqual({
      error: 'Tool execution failed: Error: could not log in with [REDACTED REDACTION_TEST_TOKEN]',
    });
  });

  it('hides well-known key formats that are in no variable', async () => {
    const out = await registry.dispatch(
      'test_echo_secret',
      { text: 'key ghp_0123456789abcdefghijABCDEFGHIJ0123 here' },
      ctx(),
    );
    expect(JSON.parse(out)).toEqual({ text: 'key [REDACTED key] here' });
  });

  it('leaves code that only looks like an assignment alone (lower-case names)', async () => {
    const out = await registry.dispatch(
      'test_echo_secret',
      { text: 'interface Login { password: string; token: string }' },
      ctx(),
    );
    expect(JSON.parse(out)).toEqual({ text: 'interface Login { password: string; token: string }' });
  });

  it('cannot hide a transformed secret: base64 of the token passes (the documented limit)', async () => {
    const encoded = Buffer.from(TOKEN).toString('base64');
    const out = await registry.dispatch('test_echo_secret', { text: encoded }, ctx());
    expect(JSON.parse(out)).toEqual({ text: encoded });
  });
});
