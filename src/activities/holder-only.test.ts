// The eager try of a call meant for the worker holding a task's environment (`...OnHolder` activities) runs only on
// the worker it names; any other answers misrouted and runs nothing. Activity context: Temporal's
// MockActivityEnvironment; the tool and the gate are the real activities.
import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';
import { AllowlistBook } from '../approval/allowlist-book.js';
import { parseConfig } from '../config/config.js';
import { Hooks } from '../registry/hooks.js';
import { ToolRegistry } from '../registry/registry.js';
import { recordingLogger } from '../../test/support/recording-logger.js';
import { createGateActivities } from './gate.js';
import { holderActivities } from './holder-only.js';
import { createToolActivities } from './tools.js';
import type { RunToolInput, RunToolOutput } from '../common/activity-contract.js';

function setUp() {
  const ran: string[] = [];
  const registry = new ToolRegistry();
  registry.register({
    name: 'act',
    toolset: 't',
    description: '',
    schema: { type: 'object', properties: { what: { type: 'string' } } },
    handler: (args: { what?: string }) => {
      ran.push(args.what ?? '');
      return JSON.stringify({ did: args.what });
    },
    gate: (args: { what?: string }) => ({ text: `echo ${args.what ?? ''}` }),
    sideEffects: 'changes-world',
  });
  const deps = { registry, hooks: new Hooks(), log: recordingLogger(), config: parseConfig({}), workerQueue: 'q@me' };
  const tools = createToolActivities(deps);
  const gate = createGateActivities({ ...deps, allowlist: new AllowlistBook([]) });
  const acts = {
    runTool: (i: RunToolInput) => tools.runTool(i, gate),
    runGatedTool: (i: RunToolInput) => tools.runTool(i, gate, true),
    assessCall: gate.assessCall,
  };
  return { ran, ...holderActivities('q@me', acts) };
}

const call = { name: 'act', args: '{"what":"x"}', callId: 'c1', taskId: 't1', cwd: '/tmp' };

describe('a call for the holding worker', () => {
  it('runs nothing on another worker, or where no holder is named', async () => {
    const s = setUp();
    const env = new MockActivityEnvironment();
    for (const holder of ['q@other', undefined]) {
      expect(await env.run(s.runToolOnHolder, { ...call, holder })).toEqual({ status: 'misrouted', result: '' });
      expect(await env.run(s.runGatedToolOnHolder, { ...call, holder })).toEqual({ status: 'misrouted', result: '' });
      // Judged nothing: were it ever read as a verdict, it would refuse the call, not let it through.
      expect(await env.run(s.assessCallOnHolder, { ...call, holder })).toMatchObject({
        misrouted: true,
        dangerous: true,
        tier: 'hardline',
      });
    }
    expect(s.ran).toEqual([]);
  });

  it('a later attempt reaching another worker fails as the holder lost: its earlier attempt may have run there', async () => {
    const s = setUp();
    const retry = new MockActivityEnvironment({ attempt: 2 });
    for (const run of [s.runToolOnHolder, s.runGatedToolOnHolder])
      await expect(retry.run(run, { ...call, holder: 'q@other' })).rejects.toMatchObject({ type: 'Holder.Lost' });
    // A check runs nothing: it may say misrouted at any attempt.
    expect(await retry.run(s.assessCallOnHolder, { ...call, holder: 'q@other' })).toMatchObject({ misrouted: true });
    expect(s.ran).toEqual([]);
  });

  it('runs and judges on the worker it names', async () => {
    const s = setUp();
    const env = new MockActivityEnvironment();
    expect(await env.run(s.runToolOnHolder, { ...call, holder: 'q@me' })).toMatchObject({ status: 'ok' });
    expect(await env.run(s.assessCallOnHolder, { ...call, holder: 'q@me' })).toMatchObject({ command: 'echo x' });
    expect(await env.run(s.runGatedToolOnHolder, { ...call, holder: 'q@me' })).toMatchObject({ status: 'ok' });
    expect(s.ran).toEqual(['x', 'x']);
  });

  it('judges a gated call first: one that needs a person comes back with its verdict, unrun', async () => {
    const s = setUp();
    const env = new MockActivityEnvironment();
    const dangerous = { ...call, args: JSON.stringify({ what: 'x; rm -rf /home' }), holder: 'q@me' };
    const out: RunToolOutput = await env.run(s.runGatedToolOnHolder, dangerous);
    expect(out).toMatchObject({ status: 'approval_required', result: '', assessment: { dangerous: true } });
    expect(out.assessment?.command).toBe('echo x; rm -rf /home');
    // Approved, the call runs (through runTool, which does not judge again).
    expect(await env.run(s.runToolOnHolder, { ...dangerous, approved: true })).toMatchObject({ status: 'ok' });
    expect(s.ran).toEqual(['x; rm -rf /home']);
  });
});
