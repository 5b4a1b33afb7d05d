// The durable agent loop on a real dev server with a real worker, the real registry and the scripted model.
import { mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { registry } from '../src/registry/index.js';
import { harness, type Harness } from './support/agent-harness.js';
import { lastToolResults, startScriptedModel } from './support/scripted-model.js';
import { activityWindows, overlapping, recordHistory } from './support/history.js';

let h: Harness;
const workdir = () => realpathSync(mkdtempSync(join(tmpdir(), 'tether-loop-')));

beforeAll(async () => {
  h = await harness();
  // A slow read-only tool, to see parallel calls overlap in the history's event times.
  registry.register({
    name: 'test_wait',
    toolset: 'test',
    description: 'waits',
    schema: z.object({ ms: z.number() }),
    parallelSafe: true,
    sideEffects: 'read-only',
    handler: async ({ ms }) => {
      await new Promise((r) => setTimeout(r, ms));
      return JSON.stringify({ waited: ms });
    },
  });
});
afterAll(async () => {
  registry.unregister('test_wait');
  await h.close();
});

describe('agentWorkflow', () => {
  it('runs a multi-turn task with terminal and file tools and ends with the scripted answer', async () => {
    const cwd = workdir();
    const model = await startScriptedModel([
      { toolCalls: [{ name: 'write_file', arguments: { path: 'notes/hello.txt', content: 'hello from tether\n' } }] },
      { toolCalls: [{ name: 'terminal', arguments: { command: 'wc -c < notes/hello.txt; cat notes/hello.txt' } }] },
      { toolCalls: [{ name: 'read_file', arguments: { path: 'notes/hello.txt' } }] },
      { content: 'The file says hello.' },
    ]);
    const workflowId = `multi-turn-${Date.now()}`;
    const result = await h.withWorker(model.url, () => h.run({ task: 'write and check a file', cwd }, workflowId));
    await model.close();
    recordHistory(h.address, workflowId, 'multi-turn');
    expect(model.errors).toEqual([]);
    expect(result).toMatchObject({ status: 'completed', answer: 'The file says hello.', turns: 4, toolCalls: 3 });
    expect(readFileSync(join(cwd, 'notes/hello.txt'), 'utf8')).toBe('hello from tether\n');
    // Each turn's request carried the previous tool results.
    const toolMessages = model.requests[3]!.messages.filter((m) => m.role === 'tool').map(
      (m) => JSON.parse(m.content!) as unknown,
    );
    expect(toolMessages).toEqual([
      { path: 'notes/hello.txt', bytes_written: 18 },
      { exit_code: 0, output: '18\nhello from tether\n' },
      { path: 'notes/hello.txt', content: '     1|hello from tether', total_lines: 1 },
    ]);
    expect(model.requests[0]!.tools!.map((t) => t.function.name)).toEqual(
      expect.arrayContaining(['terminal', 'read_file', 'test_wait']),
    );
    // The agent-loop tools are offered: the workflow handles them.
    expect(model.requests[0]!.tools!.map((t) => t.function.name)).toEqual(
      expect.arrayContaining(['todo', 'memory', 'session_search', 'delegate_task', 'clarify']),
    );
  });

  it('runs parallel-safe calls concurrently and side-effecting calls one after another, results in order', async () => {
    const cwd = workdir();
    const model = await startScriptedModel([
      {
        toolCalls: [
          { name: 'test_wait', arguments: { ms: 1500 } },
          { name: 'test_wait', arguments: { ms: 1000 } },
          { name: 'terminal', arguments: { command: 'sleep 1; echo first' } },
          { name: 'terminal', arguments: { command: 'sleep 1; echo second' } },
        ],
      },
      { content: 'done' },
    ]);
    const workflowId = `parallel-${Date.now()}`;
    await h.withWorker(model.url, () => h.run({ task: 'wait', cwd }, workflowId));
    await model.close();
    recordHistory(h.address, workflowId, 'parallel-batch');
    expect(lastToolResults(model)).toEqual([
      { waited: 1500 },
      { waited: 1000 },
      { exit_code: 0, output: 'first\n' },
      { exit_code: 0, output: 'second\n' },
    ]);
    const windows = await activityWindows(h.client, workflowId, 'runTool');
    expect(windows).toHaveLength(4);
    expect(overlapping(windows[0]!, windows[1]!)).toBe(true);
    expect(overlapping(windows[2]!, windows[3]!)).toBe(false);
    expect(overlapping(windows[1]!, windows[2]!)).toBe(false);
  });

  it('returns malformed calls to the model as JSON errors and goes on', async () => {
    const model = await startScriptedModel([
      {
        toolCalls: [
          { name: 'no_such_tool', arguments: {} },
          { name: 'read_file', arguments: '{"path": "x.txt"' },
          { name: 'read_file', arguments: { path: 42 } },
        ],
      },
      { content: 'recovered' },
    ]);
    const result = await h.withWorker(model.url, () => h.run({ task: 'break things', cwd: workdir() }));
    await model.close();
    expect(result).toMatchObject({ status: 'completed', answer: 'recovered' });
    const errors = lastToolResults(model) as { error: string }[];
    expect(errors[0]!.error).toBe("Unknown tool 'no_such_tool'");
    expect(errors[1]!.error).toMatch(/not valid JSON/);
    expect(errors[2]!.error).toMatch(/Invalid arguments for tool 'read_file'.*expected string/s);
  });

  it('stops at the turn limit with a clear status, not an error', async () => {
    const loop = { toolCalls: [{ name: 'test_wait', arguments: { ms: 1 } }] };
    const model = await startScriptedModel([loop, loop, loop]);
    const result = await h.withWorker(model.url, () =>
      h.run({ task: 'loop', cwd: workdir(), limits: { maxTurns: 2 } }),
    );
    await model.close();
    expect(result).toMatchObject({ status: 'limit_reached', stopReason: 'max_turns', turns: 2 });
    expect(model.requests).toHaveLength(2);
  });

  it('fails fast on a 401 from the model, naming the setting to fix', async () => {
    const model = await startScriptedModel([{ status: 401, error: 'Incorrect API key provided' }]);
    const run = h.withWorker(model.url, () => h.run({ task: 'anything', cwd: workdir() }));
    const err = await run.catch((e: unknown) => e);
    await model.close();
    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect(String((err as WorkflowFailedError).cause?.message)).toMatch(/OPENAI_API_KEY/);
    expect(model.requests).toHaveLength(1);
  });

  it('fails loudly when the model script runs out', async () => {
    const model = await startScriptedModel([{ toolCalls: [{ name: 'test_wait', arguments: { ms: 1 } }] }]);
    const err = await h.withWorker(model.url, () => h.run({ task: 'x', cwd: workdir() })).catch((e: unknown) => e);
    await model.close();
    expect(String((err as WorkflowFailedError).cause?.message)).toMatch(/script ran out/);
    expect(model.errors).toHaveLength(1);
  });
});
