// What the agent loop refuses inside a run, and how: more than 32 tool calls in one turn. The extra calls get an
// error result the model sees, and the run's summary counts only the calls that ran.
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../support/agent-harness.js';
import { startScriptedModel } from '../support/scripted-model.js';
import type { AgentState } from '../../src/common/types.js';

let h: Harness;
beforeAll(async () => {
  h = await harness();
});
afterAll(async () => h.close());

describe('more than 32 tool calls in one turn', () => {
  it('runs the first 32, refuses the rest with an error result, and counts 32', async () => {
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-bad-calls-')));
    writeFileSync(join(cwd, 'note.txt'), 'hello\n');
    const calls = Array.from({ length: 35 }, (_, i) => ({
      id: `call_${i}`,
      name: 'read_file',
      arguments: { path: 'note.txt' },
    }));
    let results: string[] = [];
    const model = await startScriptedModel([
      { toolCalls: calls },
      (req) => {
        results = req.messages.filter((m) => m.role === 'tool').map((m) => m.content ?? '');
        return { content: 'done' };
      },
    ]);
    try {
      const workflowId = `bad-calls-${Date.now()}`;
      // The query needs a worker too, so it runs before the worker stops.
      const [result, state] = await h.withWorker(model.url, async () => {
        const r = await h.run({ task: 'read it many times', cwd }, workflowId);
        return [r, await h.client.workflow.getHandle(workflowId).query<AgentState>('state')] as const;
      });
      expect(results).toHaveLength(35);
      expect(results.slice(0, 32).every((r) => r.includes('hello'))).toBe(true);
      for (const r of results.slice(32))
        expect(JSON.parse(r)).toEqual({
          error: 'Not run: more than 32 tool calls in one turn. Ask for fewer at a time.',
        });
      expect(result.toolCalls).toBe(32);
      expect(state.toolCallCount).toBe(32);
      expect(state.lastToolCalls.slice(32).map((v) => [v.status, v.summary])).toEqual(
        Array(3).fill(['error', 'not run (over 32 calls in one turn)']),
      );
    } finally {
      await model.close();
    }
  });
});

describe('arguments nested 100,000 deep', () => {
  it('get an error result the model sees, and the run goes on (it failed on printing them)', async () => {
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-bad-deep-')));
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    let results: string[] = [];
    // One call a turn: three such replies together would pass the reply size limit.
    const model = await startScriptedModel([
      { toolCalls: [{ id: 'call_a', name: 'terminal', arguments: `{"command": ${deep}}` }] },
      { toolCalls: [{ id: 'call_b', name: 'terminal', arguments: `{"command": "echo still here", "x": ${deep}}` }] },
      { toolCalls: [{ id: 'call_c', name: 'no_such_tool', arguments: `{"x": ${deep}}` }] },
      (req) => {
        results = req.messages.filter((m) => m.role === 'tool').map((m) => m.content ?? '');
        return { content: 'done' };
      },
    ]);
    try {
      const result = await h.withWorker(model.url, () => h.run({ task: 'deep', cwd }, `bad-deep-${Date.now()}`));
      expect(result.status).toBe('completed');
      expect(results).toHaveLength(3);
      expect(results[0]).toMatch(/Invalid arguments for tool 'terminal'/);
      expect(results[1]).toMatch(/still here/);
      expect(results[2]).toMatch(/Unknown tool 'no_such_tool'/);
    } finally {
      await model.close();
    }
  });
});
