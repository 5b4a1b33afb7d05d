// A call scheduled for eager dispatch names the worker holding the task's environment (`holder`); a worker that is not
// it answers `misrouted` and runs nothing, on its first attempt only (a later attempt means one ran: at most once is
// decided where it runs now). Activity context: Temporal's MockActivityEnvironment; tool and gate are real.
import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';
import type { RunToolOutput } from '../common/activity-contract.js';
import { parseConfig } from '../config/config.js';
import { Hooks } from '../registry/hooks.js';
import { ToolRegistry } from '../registry/registry.js';
import { recordingLogger } from '../../test/support/recording-logger.js';
import { createGateActivities } from './gate.js';
import { createToolActivities } from './tools.js';

function setUp(): {
  ran: string[];
  runTool: ReturnType<typeof createToolActivities>['runTool'];
  assessCall: ReturnType<typeof createGateActivities>['assessCall'];
} {
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
  return {
    ran,
    runTool: createToolActivities(deps).runTool,
    assessCall: createGateActivities({ ...deps, configFile: '/nonexistent/config.yaml' }).assessCall,
  };
}

const call = { name: 'act', args: '{"what":"x"}', callId: 'c1', taskId: 't1', cwd: '/tmp' };

describe('a call meant for another worker', () => {
  it('runs nothing and answers misrouted on its first attempt', async () => {
    const s = setUp();
    const env = new MockActivityEnvironment({ attempt: 1 });
    expect(await env.run(s.runTool, { ...call, holder: 'q@other' })).toEqual({ status: 'misrouted', result: '' });
    const judged = await env.run(s.assessCall, { ...call, holder: 'q@other' });
    // Judged nothing, so nothing can take it for a verdict that lets the call through.
    expect(judged).toMatchObject({ misrouted: true, dangerous: true, command: '' });
    expect(s.ran).toEqual([]);
  });

  it('runs on the worker it names, and where no worker is named', async () => {
    const s = setUp();
    const env = new MockActivityEnvironment({ attempt: 1 });
    expect(await env.run(s.runTool, { ...call, holder: 'q@me' })).toMatchObject({ status: 'ok' });
    expect(await env.run(s.runTool, call)).toMatchObject({ status: 'ok' });
    expect(await env.run(s.assessCall, { ...call, holder: 'q@me' })).toMatchObject({ command: 'echo x' });
    expect(s.ran).toEqual(['x', 'x']);
  });

  it('a later attempt is not sent away: a world-changing call reports the lost attempt instead of running again', async () => {
    const s = setUp();
    const env = new MockActivityEnvironment({ attempt: 2 });
    const out: RunToolOutput = await env.run(s.runTool, { ...call, holder: 'q@other' });
    expect(out.status).toBe('ok');
    expect(JSON.parse(out.result)).toMatchObject({ interrupted: true });
    expect(s.ran).toEqual([]);
  });
});
