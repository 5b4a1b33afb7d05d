// What tether sends to OpenAI-compatible servers and how it takes their refusals: an assistant message with tool
// calls goes with content "" (not null), and a 5xx that says the request is invalid fails the run at once.
// The last test runs against llama-cpp-python's real server (built by scripts/setup-llama-server.mjs).
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../support/agent-harness.js';
import { llamaServerMissing, startLlamaServer } from '../support/llama-server.js';
import { startScriptedModel } from '../support/scripted-model.js';

let h: Harness;
beforeAll(async () => {
  h = await harness();
});
afterAll(async () => h.close());
const workdir = (): string => realpathSync(mkdtempSync(join(tmpdir(), 'tether-bad-model-')));

describe('OpenAI-compatible servers', () => {
  it('the assistant message that carries tool_calls is sent with content "" (never null)', async () => {
    const cwd = workdir();
    writeFileSync(join(cwd, 'a.txt'), 'alpha\n');
    const model = await startScriptedModel([
      { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
      { content: 'read it' },
    ]);
    try {
      const result = await h.withWorker(model.url, () => h.run({ task: 'read a.txt', cwd }));
      expect(result.answer).toBe('read it');
      const assistant = model.requests[1]!.messages.find((m) => m.role === 'assistant')!;
      expect(assistant.tool_calls).toHaveLength(1);
      expect(assistant.content).toBe('');
    } finally {
      await model.close();
    }
  });

  it("a 5xx whose body is a validation error fails the run at once, with the server's message (no retries)", async () => {
    const model = await startScriptedModel([
      {
        status: 500,
        error:
          '1 validation error for ChatCompletionRequest\nmessages.1.content\n  Input should be a valid string [type=string_type, input_value=None]',
      },
    ]);
    try {
      const err = await h
        .withWorker(model.url, () => h.run({ task: 'anything', cwd: workdir() }))
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(WorkflowFailedError);
      expect(String((err as WorkflowFailedError).cause?.message)).toMatch(
        /rejected the request \(HTTP 500, a validation error\): .*1 validation error for ChatCompletionRequest/s,
      );
      expect(model.requests).toHaveLength(1);
    } finally {
      await model.close();
    }
  });

  const missing = llamaServerMissing();
  const skip = missing !== undefined && process.env.TETHER_SKIP_LLAMA_SERVER === '1';
  it.skipIf(skip)(
    `runs a tool-calling turn end to end against llama-cpp-python's server${skip ? ` (skipped: TETHER_SKIP_LLAMA_SERVER=1 and ${missing})` : ''}`,
    async () => {
      if (missing)
        throw new Error(`${missing}; set TETHER_SKIP_LLAMA_SERVER=1 to skip this test on a machine without it`);
      const server = await startLlamaServer();
      // The real server writes every answer; the scripted server in front of it only decides the first turn, so the
      // second request, which carries the assistant's tool_calls, is answered by llama-cpp-python itself.
      const cwd = workdir();
      writeFileSync(join(cwd, 'a.txt'), 'alpha\n');
      const proxy = await startScriptedModel([
        { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
        async (req) => {
          const res = await fetch(`${server.url}/chat/completions`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ ...req, max_tokens: 16 }),
          });
          const body = (await res.json()) as {
            choices?: { message?: { content?: string } }[];
            error?: unknown;
            detail?: unknown;
          };
          if (!res.ok) return { status: res.status, error: JSON.stringify(body) };
          return { content: body.choices?.[0]?.message?.content || '(empty)' };
        },
      ]);
      try {
        const result = await h.withWorker(proxy.url, () => h.run({ task: 'read a.txt', cwd }));
        expect(result.status).toBe('completed');
        expect(proxy.errors).toEqual([]);
      } finally {
        await proxy.close();
        await server.close();
      }
    },
    300_000,
  );
});
