// A model reply too large for Temporal: the model is told and the run goes on, with no retried model call.
import { existsSync, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, type Harness } from './support/agent-harness.js';
import { startScriptedModel } from './support/scripted-model.js';
import { recordHistory } from './support/history.js';

let h: Harness;
const workdir = () => realpathSync(mkdtempSync(join(tmpdir(), 'tether-oversized-')));

beforeAll(async () => {
  h = await harness();
});
afterAll(async () => {
  await h.close();
});

async function eventTypes(workflowId: string): Promise<string[]> {
  const history = await h.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).map((e) => Object.keys(e).find((k) => k.endsWith('EventAttributes')) ?? '');
}

describe('an oversized model reply', () => {
  it('becomes a tool error the model sees: a 5 MB write_file is not run, not retried, and the run goes on', async () => {
    const cwd = workdir();
    const big = 'x'.repeat(5 * 1024 * 1024 + 300 * 1024);
    const model = await startScriptedModel([
      {
        toolCalls: [
          { name: 'write_file', arguments: { path: 'big.txt', content: big } },
          { name: 'read_file', arguments: { path: 'nothing.txt' } },
        ],
      },
      { toolCalls: [{ name: 'write_file', arguments: { path: 'small.txt', content: 'part 1\n' } }] },
      { content: 'wrote it in parts' },
    ]);
    const workflowId = `oversized-${Date.now()}`;
    const result = await h.withWorker(model.url, () => h.run({ task: 'write a big file', cwd }, workflowId));
    await model.close();
    recordHistory(h.address, workflowId, 'oversized-reply');
    expect(model.errors).toEqual([]);
    expect(result).toMatchObject({ status: 'completed', answer: 'wrote it in parts', turns: 3 });
    // One request per turn: the oversized reply was not asked for again.
    expect(model.requests).toHaveLength(3);
    const second = model.requests[1]!.messages;
    const tools = second.filter((m) => m.role === 'tool');
    expect(tools).toHaveLength(2);
    for (const t of tools) {
      expect(JSON.parse(t.content!)).toMatchObject({
        not_run: true,
        error: expect.stringMatching(
          /^Your reply was 5\.3 MB; the limit is 512 KB \(524288 bytes\).*Write large content in parts/,
        ),
      });
    }
    // The model sees its own turn, shortened: the calls keep their ids, the arguments are left out.
    const own = second.find((m) => m.role === 'assistant')!;
    expect(JSON.stringify(own).length).toBeLessThan(10_000);
    expect(existsSync(join(cwd, 'big.txt'))).toBe(false);
    expect(existsSync(join(cwd, 'small.txt'))).toBe(true);
    const events = await eventTypes(workflowId);
    expect(
      events.filter((e) => e === 'activityTaskFailedEventAttributes' || e === 'activityTaskTimedOutEventAttributes'),
    ).toEqual([]);
  }, 120_000);

  it('without tool calls: the model is told in a note and answers again', async () => {
    const model = await startScriptedModel([{ content: 'y'.repeat(3 * 1024 * 1024) }, { content: 'short answer' }]);
    const result = await h.withWorker(model.url, () => h.run({ task: 'answer', cwd: workdir() }));
    await model.close();
    expect(model.errors).toEqual([]);
    expect(result).toMatchObject({ status: 'completed', answer: 'short answer', turns: 2 });
    const note = model.requests[1]!.messages.at(-1)!;
    expect(note.role).toBe('user');
    expect(note.content).toMatch(/^\[tether\] Your reply was 3\.0 MB; the limit is 512 KB/);
  }, 120_000);
});
