// TaskTexts: the cache by run, the conversation checked against the digest, the query on a miss, and no text (one
// warn line) when nothing answers; readsTask: who makes a call look the text up.
import { describe, expect, it } from 'vitest';
import { digestText } from '../common/conversation-digest.js';
import type { Logger } from '../logging/logger.js';
import { Hooks } from '../registry/hooks.js';
import { ToolRegistry } from '../registry/registry.js';
import { readsTask, TaskTexts } from './task-text.js';

const task = `the task ${'x'.repeat(5_000)}`;
const ref = digestText(task);

function setUp(conversation: Record<string, string>, answer: string | undefined, now = () => 0) {
  const warnings: string[] = [];
  const log: Logger = { warn: (_o, m) => warnings.push(m), info: () => {}, error: () => {}, debug: () => {} };
  let asked = 0;
  const texts = new TaskTexts(
    log,
    {
      firstUserMessage: (run) => conversation[run],
      ask: async () => {
        asked += 1;
        return answer;
      },
    },
    now,
  );
  return { texts, warnings, asked: () => asked };
}

describe('TaskTexts', () => {
  it('takes the text from the conversation this worker holds, then from its cache, without asking', async () => {
    const s = setUp({ run: task }, undefined);
    expect(await s.texts.resolve('run', ref)).toBe(task);
    expect(await s.texts.resolve('run', ref)).toBe(task);
    expect(s.asked()).toBe(0);
  });

  it('asks the workflow when the conversation does not start with the task, and keeps the answer', async () => {
    const s = setUp({ run: 'a conversation started from other messages' }, task);
    expect(await s.texts.resolve('run', ref)).toBe(task);
    expect(await s.texts.resolve('run', ref)).toBe(task);
    expect(s.asked()).toBe(1);
  });

  it('gives no text and one warn line when the workflow does not answer, or answers another text', async () => {
    for (const answer of [undefined, 'another task']) {
      const s = setUp({}, answer);
      expect(await s.texts.resolve('run', ref)).toBeUndefined();
      expect(s.warnings).toHaveLength(1);
      expect(s.warnings[0]).toMatch(/task text could not be had/);
    }
  });

  it('does not ask again for a minute after the workflow did not answer; the calls go on without the text', async () => {
    let t = 0;
    const s = setUp({}, undefined, () => t);
    expect(await s.texts.resolve('run', ref)).toBeUndefined();
    t = 59_000;
    expect(await s.texts.resolve('run', ref)).toBeUndefined();
    expect(s.asked()).toBe(1);
    expect(s.warnings).toHaveLength(2);
    t = 61_000;
    expect(await s.texts.resolve('run', ref)).toBeUndefined();
    expect(s.asked()).toBe(2);
  });

  it('keeps each run apart', async () => {
    const other = 'the other run';
    const s = setUp({ a: task, b: other }, undefined);
    expect(await s.texts.resolve('a', ref)).toBe(task);
    expect(await s.texts.resolve('b', digestText(other))).toBe(other);
    expect(await s.texts.resolve('b', ref)).toBeUndefined();
  });
});

describe('readsTask', () => {
  it('is false for a built-in tool with no hooks, true with any hook or a tool registered as reading it', () => {
    const registry = new ToolRegistry();
    const handler = (): string => '{}';
    registry.register({ name: 'plain', toolset: 't', description: '', schema: { type: 'object' }, handler });
    registry.register({
      name: 'reader',
      toolset: 't',
      description: '',
      schema: { type: 'object' },
      handler,
      readsUserTask: true,
    });
    const hooks = new Hooks();
    expect(readsTask('plain', registry, hooks)).toBe(false);
    expect(readsTask('reader', registry, hooks)).toBe(true);
    expect(readsTask('unknown', registry, hooks)).toBe(false);
    hooks.add('transform_tool_result', () => undefined, 'test');
    expect(readsTask('plain', registry, hooks)).toBe(true);
  });
});
