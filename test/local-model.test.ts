// The small local model (local:tiny, SmolLM2-135M) with its real weights: well-formed tool calls and a final answer (content not judged).
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoverBuiltinTools } from '../src/registry/discover.js';
import { registry } from '../src/registry/index.js';
import { LOCAL_MODEL_NAME, localModelSettings } from '../src/models/local-model.js';
import { createLocalProvider } from '../src/models/local-provider.js';
import { getToolDefinitions } from '../src/toolsets/resolve.js';
import type { ChatMessage } from '../src/common/types.js';
import { harness, type Harness } from './support/agent-harness.js';

const settings = localModelSettings();
if (!settings) {
  console.warn(
    "local-model tests skipped: the weights are not installed (run 'npm run setup:local-model'; .ci/run does)",
  );
}

describe.skipIf(!settings)('local model (SmolLM2-135M-Instruct, node-llama-cpp, CPU)', () => {
  let h: Harness;
  beforeAll(async () => {
    await discoverBuiltinTools();
    h = await harness();
  });
  afterAll(async () => {
    await h.close();
  });

  it('produces a schema-valid tool call first, and an answer once tool rounds are used up', async () => {
    const provider = createLocalProvider({ ...settings!, maxToolRounds: 1 });
    const tools = getToolDefinitions({ enabledToolsets: ['read-only'], quiet: true });
    const messages: ChatMessage[] = [
      { role: 'system', content: 'You are an agent. Use tools, then answer.' },
      { role: 'user', content: 'Read the file notes.txt and tell me what it says.' },
    ];
    const first = await provider.complete({ model: LOCAL_MODEL_NAME, messages, tools }, new AbortController().signal);
    const call = first.message.tool_calls?.[0];
    expect(call).toBeDefined();
    const entry = registry.get(call!.function.name);
    expect(tools.map((t) => t.function.name)).toContain(call!.function.name);
    expect(entry!.validate(JSON.parse(call!.function.arguments))).toMatchObject({ ok: true });
    expect(first.usage.completionTokens).toBeGreaterThan(0);

    messages.push(first.message, { role: 'tool', tool_call_id: call!.id, content: '{"content":"     1|buy milk"}' });
    const second = await provider.complete({ model: LOCAL_MODEL_NAME, messages, tools }, new AbortController().signal);
    expect(second.message.tool_calls).toBeUndefined();
    expect(typeof second.message.content).toBe('string');
    expect(second.message.content!.length).toBeGreaterThan(0);
  });

  it('runs an agent to a final answer on the real dev server', async () => {
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-local-')));
    writeFileSync(join(cwd, 'notes.txt'), 'buy milk\n');
    const result = await h.withWorker('http://127.0.0.1:9/unused', () =>
      h.run({
        task: 'What does notes.txt say?',
        model: LOCAL_MODEL_NAME,
        cwd,
        enabledToolsets: ['read-only'],
        limits: { maxTurns: 6 },
      }),
    );
    expect(result.status).toBe('completed');
    expect(result.toolCalls).toBeGreaterThanOrEqual(1);
    expect(result.answer.length).toBeGreaterThan(0);
  });
});
