import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { recordingLogger } from '../../test/support/recording-logger.js';
import { TetherError } from '../common/errors.js';
import { ToolRegistry } from './registry.js';
import type { ToolContext } from './types.js';

const ctx: ToolContext = { taskId: 't1', cwd: process.cwd() };
const noArgs = z.object({});

function fresh() {
  const log = recordingLogger();
  return { reg: new ToolRegistry(log), log };
}

function parse(result: string): Record<string, unknown> {
  return JSON.parse(result) as Record<string, unknown>;
}

describe('register', () => {
  it('creates an entry with the OpenAI schema generated from a Zod object', () => {
    const { reg } = fresh();
    const entry = reg.register({
      name: 'echo',
      toolset: 'demo',
      description: 'echo text',
      schema: z.object({ text: z.string().describe('what to echo'), times: z.number().int().optional() }),
      handler: ({ text }) => JSON.stringify({ text }),
      emoji: '🔊',
    });
    expect(entry.parameters).toMatchObject({
      type: 'object',
      properties: { text: { type: 'string', description: 'what to echo' }, times: { type: 'integer' } },
      required: ['text'],
    });
    expect(entry.parameters).not.toHaveProperty('$schema');
    expect(entry.sideEffects).toBe('changes-world');
    expect(entry.parallelSafe).toBe(false);
    expect(reg.getDefinitions(['echo'])).toEqual([
      { type: 'function', function: { name: 'echo', description: 'echo text', parameters: entry.parameters } },
    ]);
  });

  it('accepts a JSON schema and validates arguments against it', async () => {
    const { reg } = fresh();
    reg.register({
      name: 'js',
      toolset: 'demo',
      description: 'json schema tool',
      schema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
      handler: (args) => JSON.stringify(args),
    });
    expect(parse(await reg.dispatch('js', '{"n": 2}', ctx))).toEqual({ n: 2 });
    const bad = parse(await reg.dispatch('js', '{"n": "two"}', ctx));
    expect(bad.error).toMatch(/Invalid arguments for tool 'js'.*must be number/);
  });

  it.each([
    [
      'a JSON schema with an unknown type',
      { type: 'object', properties: { a: { type: 'strnig' } } },
      /malformed JSON schema/,
    ],
    ['a JSON schema that is not an object', { type: 'string' }, /"type": "object"/],
    ['a Zod schema that is not an object', z.string(), /must be a Zod object/],
    ['a Zod schema with no JSON form', z.object({ when: z.date() }), /cannot be expressed as JSON schema/],
    ['no schema at all', null, /schema must be/],
  ])('refuses %s, naming the tool', (_label, schema, message) => {
    const { reg } = fresh();
    const register = () =>
      reg.register({
        name: 'broken_tool',
        toolset: 'demo',
        description: 'x',
        schema: schema as never,
        handler: () => '{}',
      });
    expect(register).toThrow(expect.objectContaining({ code: 'Tool.BadSchema' }));
    expect(register).toThrow(/broken_tool/);
    expect(register).toThrow(message);
    expect(reg.get('broken_tool')).toBeUndefined();
  });

  it('refuses an invalid name and a missing handler', () => {
    const { reg } = fresh();
    expect(() =>
      reg.register({ name: 'has space', toolset: 'd', description: '', schema: noArgs, handler: () => '{}' }),
    ).toThrow(/invalid/);
    expect(() => reg.register({ name: 'nohandler', toolset: 'd', description: '', schema: noArgs })).toThrow(
      /handler is required/,
    );
  });

  it('warns naming both toolsets when a name is registered twice, and the later one applies', async () => {
    const { reg, log } = fresh();
    reg.register({ name: 'dup', toolset: 'first', description: '', schema: noArgs, handler: () => '{"from":"first"}' });
    reg.register({
      name: 'dup',
      toolset: 'second',
      description: '',
      schema: noArgs,
      handler: () => '{"from":"second"}',
    });
    const warning = log.lines.find((l) => l.level === 'warn');
    expect(warning?.msg).toContain("'first'");
    expect(warning?.msg).toContain("'second'");
    expect(reg.get('dup')?.toolset).toBe('second');
    expect(parse(await reg.dispatch('dup', '{}', ctx))).toEqual({ from: 'second' });
  });
});

describe('availability', () => {
  it('hides a tool whose check returns false or throws, or whose environment variable is missing', () => {
    const { reg } = fresh();
    const base = { toolset: 'demo', description: '', schema: noArgs, handler: () => '{}' };
    reg.register({ ...base, name: 'ok', checkFn: () => true });
    reg.register({ ...base, name: 'off', checkFn: () => false });
    reg.register({
      ...base,
      name: 'throws',
      checkFn: () => {
        throw new Error('no daemon');
      },
    });
    reg.register({ ...base, name: 'needs_env', requiresEnv: ['TETHER_TEST_SURELY_UNSET_VAR'] });
    expect(reg.getDefinitions(['ok', 'off', 'throws', 'needs_env']).map((d) => d.function.name)).toEqual(['ok']);
    expect(reg.availability(reg.get('throws')!)).toEqual({
      available: false,
      reason: 'availability check threw Error: no daemon',
    });
    expect(reg.availability(reg.get('needs_env')!)).toMatchObject({
      reason: expect.stringContaining('TETHER_TEST_SURELY_UNSET_VAR'),
    });
  });

  it('runs a check shared by many tools once per getDefinitions call', () => {
    const { reg } = fresh();
    const shared = vi.fn(() => true);
    for (const name of ['a', 'b', 'c']) {
      reg.register({ name, toolset: 'demo', description: '', schema: noArgs, handler: () => '{}', checkFn: shared });
    }
    expect(reg.getDefinitions(['a', 'b', 'c'])).toHaveLength(3);
    expect(shared).toHaveBeenCalledTimes(1);
    reg.getDefinitions(['a', 'b', 'c']);
    expect(shared).toHaveBeenCalledTimes(2);
  });

  it('answers for a toolset', () => {
    const { reg } = fresh();
    reg.register({ name: 'x', toolset: 'up', description: '', schema: noArgs, handler: () => '{}' });
    reg.register({
      name: 'y',
      toolset: 'down',
      description: '',
      schema: noArgs,
      handler: () => '{}',
      checkFn: () => false,
    });
    expect(reg.isToolsetAvailable('up')).toBe(true);
    expect(reg.isToolsetAvailable('down')).toBe(false);
    expect(reg.isToolsetAvailable('nothing')).toBe(false);
  });
});

describe('dispatch', () => {
  function withTools() {
    const { reg, log } = fresh();
    reg.register({
      name: 'add',
      toolset: 'math',
      description: '',
      schema: z.object({ a: z.number(), b: z.number() }),
      handler: ({ a, b }) => JSON.stringify({ sum: a + b }),
    });
    reg.register({
      name: 'slow_add',
      toolset: 'math',
      description: '',
      isAsync: true,
      schema: z.object({ a: z.number(), b: z.number() }),
      handler: async ({ a, b }) => {
        await new Promise((r) => setTimeout(r, 5));
        return JSON.stringify({ sum: a + b });
      },
    });
    reg.register({
      name: 'explode',
      toolset: 'demo',
      description: '',
      schema: noArgs,
      handler: () => {
        throw new TypeError('cannot read x of undefined');
      },
    });
    reg.register({
      name: 'not_string',
      toolset: 'demo',
      description: '',
      schema: noArgs,
      handler: () => ({ ok: true }) as unknown as string,
    });
    reg.register({
      name: 'plain',
      toolset: 'demo',
      description: '',
      schema: noArgs,
      handler: () => 'done, no JSON here',
    });
    reg.register({ name: 'loop_tool', toolset: 'todo', description: '', schema: noArgs, agentLoop: true });
    reg.register({
      name: 'big',
      toolset: 'demo',
      description: '',
      maxResultChars: 100,
      schema: noArgs,
      handler: () => JSON.stringify({ data: `HEAD${'x'.repeat(1000)}TAIL` }),
    });
    reg.register({
      name: 'infra',
      toolset: 'demo',
      description: '',
      schema: noArgs,
      handler: () => {
        throw new TetherError('Environment.Unreachable', 'sandbox gone', true);
      },
    });
    return { reg, log };
  }

  it('runs sync and async handlers, from a JSON string or an object', async () => {
    const { reg } = withTools();
    expect(parse(await reg.dispatch('add', '{"a":1,"b":2}', ctx))).toEqual({ sum: 3 });
    expect(parse(await reg.dispatch('slow_add', { a: 2, b: 3 }, ctx))).toEqual({ sum: 5 });
  });

  it.each([
    ['an unknown tool', 'nope', '{}', /^Unknown tool 'nope'$/],
    ['a prototype property as a tool name', '__proto__', '{}', /Unknown tool '__proto__'/],
    ['arguments that are not JSON', 'add', '{"a":1,', /not valid JSON/],
    ['arguments that are a JSON array', 'add', '[1,2]', /must be a JSON object/],
    ['arguments of the wrong type', 'add', '{"a":"1","b":2}', /Invalid arguments for tool 'add'.*expected number/s],
    ['missing arguments', 'add', '{}', /Invalid arguments for tool 'add'/],
    ['a throwing handler', 'explode', '{}', /^Tool execution failed: TypeError: cannot read x of undefined$/],
    ['a handler returning a non-string', 'not_string', '{}', /returned object instead of a JSON string/],
    ['an agent-loop tool', 'loop_tool', '{}', /handled by the agent loop/],
  ])('returns a JSON error for %s', async (_label, name, args, message) => {
    const { reg } = withTools();
    const result = await reg.dispatch(name, args, ctx);
    const body = parse(result);
    expect(Object.keys(body)).toEqual(['error']);
    expect(body.error).toMatch(message);
  });

  it('wraps a result that is not JSON', async () => {
    const { reg } = withTools();
    expect(parse(await reg.dispatch('plain', '', ctx))).toEqual({ result: 'done, no JSON here' });
  });

  it('cuts a result over the tool limit, keeping head and tail, and says how much was cut', async () => {
    const { reg } = withTools();
    const body = parse(await reg.dispatch('big', '{}', ctx));
    expect(body.truncated).toBe(true);
    expect(body.original_chars).toBe(1019);
    expect(body.cut_chars).toBe(919);
    expect(body.content).toMatch(/^\{"data":"HEAD/);
    expect(body.content).toMatch(/TAIL"\}$/);
    expect(body.content).toContain('919 characters cut');
  });

  it('lets a retryable infrastructure failure through for the activity to retry', async () => {
    const { reg } = withTools();
    await expect(reg.dispatch('infra', '{}', ctx)).rejects.toMatchObject({ code: 'Environment.Unreachable' });
  });
});
