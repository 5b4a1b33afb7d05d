// One tool-call envelope: on a call's way through the worker (the gate's verdict, a hook, dispatch) the model's
// arguments are parsed once, and the result is capped once, to the smaller of the tool's and history's limits.
// Activity context: Temporal's MockActivityEnvironment; the tool activity, the gate and the registry are the real ones.
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { AllowlistBook } from '../approval/allowlist-book.js';
import { parseConfig } from '../config/config.js';
import { Hooks } from '../registry/hooks.js';
import { ToolRegistry } from '../registry/registry.js';
import { recordingLogger } from '../../test/support/recording-logger.js';
import { createGateActivities } from './gate.js';
import { createToolActivities } from './tools.js';
import type { RunToolInput, RunToolOutput } from '../common/activity-contract.js';

const realParse = JSON.parse;
afterEach(() => {
  JSON.parse = realParse;
});

function setUp() {
  const registry = new ToolRegistry();
  registry.register({
    name: 'act',
    toolset: 't',
    description: '',
    schema: { type: 'object', properties: { what: { type: 'string' } } },
    handler: (args: { what?: string }) => JSON.stringify({ did: args.what }),
    gate: (args: { what?: string }) => ({ text: `echo ${args.what ?? ''}` }),
    commandArg: 'what',
    sideEffects: 'changes-world',
  });
  registry.register({
    name: 'huge',
    toolset: 't',
    description: '',
    schema: { type: 'object', properties: {} },
    maxResultChars: 100_000,
    handler: () => JSON.stringify({ data: `HEAD${'x'.repeat(150_000)}TAIL` }),
  });
  const hooks = new Hooks();
  const seen: unknown[] = [];
  hooks.add('pre_tool_call', (c) => void seen.push(c.args), 'test');
  const deps = { registry, hooks, log: recordingLogger(), config: parseConfig({}), workerQueue: 'q@me' };
  const tools = createToolActivities(deps);
  const gate = createGateActivities({ ...deps, allowlist: new AllowlistBook([]) });
  return { tools, gate, seen };
}

const call = { callId: 'c1', taskId: 't1', cwd: '/tmp' };

describe('the tool-call envelope', () => {
  it("parses the model's arguments once: the gate's verdict, the hook and dispatch read the same envelope", async () => {
    const { tools, gate, seen } = setUp();
    const args = JSON.stringify({ what: 'hello' });
    let parses = 0;
    JSON.parse = ((text: string, reviver?: Parameters<typeof realParse>[1]) => {
      if (text === args) parses += 1;
      return realParse(text, reviver) as unknown;
    }) as typeof JSON.parse;
    const out = await new MockActivityEnvironment().run((i: RunToolInput) => tools.runTool(i, gate, true), {
      ...call,
      name: 'act',
      args,
    });
    expect(out).toMatchObject({ status: 'ok', result: '{"did":"hello"}' });
    expect(seen).toEqual([{ what: 'hello' }]);
    expect(parses).toBe(1);
  });

  it('caps a result once, to the smaller of the tool limit and the history limit', async () => {
    const { tools, gate } = setUp();
    const out: RunToolOutput = await new MockActivityEnvironment().run((i: RunToolInput) => tools.runTool(i, gate), {
      ...call,
      name: 'huge',
      args: '{}',
    });
    const body = JSON.parse(out.result) as { truncated: boolean; original_chars: number; content: string };
    expect(body.truncated).toBe(true);
    expect(body.original_chars).toBe(150_019);
    // Cut once, from the whole result: its head and tail, not a cut of an earlier cut.
    expect(body.content).toMatch(/^\{"data":"HEAD/);
    expect(body.content).toMatch(/TAIL"\}$/);
    expect(out.result.length).toBeLessThan(64_500);
  });
});
