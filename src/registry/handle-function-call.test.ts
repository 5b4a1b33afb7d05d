import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { recordingLogger } from '../../test/support/recording-logger.js';
import { toolCall, type ToolCall } from './tool-call.js';
import { runToolCall, type CallOptions } from './handle-function-call.js';
import { Hooks } from './hooks.js';
import { ToolRegistry } from './registry.js';
import type { ToolContext } from './types.js';

function setup() {
  const log = recordingLogger();
  const registry = new ToolRegistry(log);
  const seen: unknown[] = [];
  registry.register({
    name: 'echo',
    toolset: 'demo',
    description: '',
    schema: z.object({ text: z.string() }),
    handler: (args, ctx) => {
      seen.push({ args, taskId: ctx.taskId, cwd: ctx.cwd, userTask: ctx.userTask });
      return JSON.stringify({ echoed: args.text });
    },
  });
  const hooks = new Hooks();
  const options: CallOptions = { registry, hooks, log, cwd: '/tmp' };
  return { registry, hooks, log, seen, options };
}

const call = (o: CallOptions, args: unknown = '{"text":"hi"}', approved = false) =>
  runToolCall(toolCall(o.registry, 'echo', args), 'task-1', 'the user task', { ...o, approved });

describe('runToolCall', () => {
  it('passes task id, user task and working directory to the handler', async () => {
    const { options, seen } = setup();
    expect(await call(options)).toEqual({ status: 'ok', result: '{"echoed":"hi"}' });
    expect(seen).toEqual([{ args: { text: 'hi' }, taskId: 'task-1', cwd: '/tmp', userTask: 'the user task' }]);
  });

  it('lets a pre_tool_call hook block a call with a message', async () => {
    const { options, hooks, seen } = setup();
    hooks.add(
      'pre_tool_call',
      (c) => (c.args?.text === 'hi' ? { action: 'block', message: 'no greetings' } : undefined),
      'guard',
    );
    const outcome = await call(options);
    expect(outcome.status).toBe('blocked');
    expect(JSON.parse(outcome.result)).toEqual({ error: 'Blocked by guard: no greetings' });
    expect(seen).toEqual([]);
  });

  it('lets a pre_tool_call hook change the arguments', async () => {
    const { options, hooks } = setup();
    hooks.add('pre_tool_call', (c) => ({ action: 'modify', args: { text: `${String(c.args?.text)}!` } }));
    expect((await call(options)).result).toBe('{"echoed":"hi!"}');
  });

  it('asks for approval when a hook requires it, and runs once approved', async () => {
    const { options, hooks, seen } = setup();
    hooks.add('pre_tool_call', () => ({ action: 'require_approval', reason: 'echo is loud' }));
    const waiting = await call(options);
    expect(waiting).toMatchObject({ status: 'approval_required', reason: 'echo is loud' });
    expect(JSON.parse(waiting.result)).toMatchObject({ approval_required: true });
    expect(seen).toEqual([]);
    expect(await call(options, '{"text":"hi"}', true)).toEqual({ status: 'ok', result: '{"echoed":"hi"}' });
  });

  it('runs post_tool_call hooks as observers and transform_tool_result hooks to replace the result', async () => {
    const { options, hooks } = setup();
    const observed: string[] = [];
    hooks.add('post_tool_call', (c) => {
      observed.push(`${c.name}:${c.result}`);
    });
    hooks.add('transform_tool_result', (c) => c.result.replace('hi', 'HI'));
    hooks.add('transform_tool_result', () => 'plain text replacement');
    expect(observed).toEqual([]);
    const outcome = await call(options);
    expect(observed).toEqual(['echo:{"echoed":"hi"}']);
    // A replacement is normalised like a handler's result: still JSON.
    expect(JSON.parse(outcome.result)).toEqual({ result: 'plain text replacement' });
  });

  it('logs a throwing hook and goes on', async () => {
    const { options, hooks, log } = setup();
    for (const name of ['pre_tool_call', 'post_tool_call', 'transform_tool_result'] as const) {
      hooks.add(
        name,
        () => {
          throw new Error(`${name} broke`);
        },
        'flaky-plugin',
      );
    }
    expect((await call(options)).result).toBe('{"echoed":"hi"}');
    expect(log.lines.filter((l) => l.level === 'warn')).toHaveLength(3);
    expect(JSON.stringify(log.lines)).toContain('flaky-plugin');
  });

  it('hands hooks null arguments when the model sent something that is not a JSON object, and dispatch reports it', async () => {
    const { options, hooks } = setup();
    const got: unknown[] = [];
    hooks.add('pre_tool_call', (c) => {
      got.push(c.args);
    });
    const outcome = await call(options, '{oops');
    expect(got).toEqual([null]);
    expect(JSON.parse(outcome.result).error).toMatch(/not valid JSON/);
  });

  it('turns anything dispatch did not catch into "Error executing <name>"', async () => {
    const { options } = setup();
    class BrokenRegistry extends ToolRegistry {
      override run(_call: ToolCall, _c: ToolContext): Promise<string> {
        return Promise.reject(new Error('registry exploded'));
      }
    }
    const outcome = await call({ ...options, registry: new BrokenRegistry(recordingLogger()) });
    expect(JSON.parse(outcome.result)).toEqual({ error: 'Error executing echo: registry exploded' });
  });
});
