// Qwen2.5-Coder-1.5B-Instruct on its real weights (node-llama-cpp, CPU): a well-formed native tool call, an answer
// from the tool's result, `tether run --model local:qwen2.5-coder-1.5b "Read notes.txt and tell me what it says"`
// answering with the file's content, and the README's first line as written — with no model setting at all, on a
// fresh TETHER_HOME — answering what the project is.
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { discoverBuiltinTools } from '../src/registry/discover.js';
import { registry } from '../src/registry/index.js';
import { localModelSettingsFor } from '../src/models/local-model.js';
import { createLocalProvider } from '../src/models/local-provider.js';
import { getToolDefinitions } from '../src/toolsets/resolve.js';
import type { ChatMessage } from '../src/common/types.js';
import { initialMessages } from '../src/workflows/prompt.js';
import { runCli } from './support/cli.js';

const MODEL = 'local:qwen2.5-coder-1.5b';
const settings = localModelSettingsFor(MODEL);
if (!settings) {
  console.warn(
    `${MODEL} tests skipped: its weights are not installed (run 'npx tether model install qwen2.5-coder-1.5b'; ` +
      '.ci/run installs them into ~/.cache/tether once)',
  );
}

// A 1.5B model on two shared cores reads its prompt at tens of tokens a second: minutes, not seconds, under load.
const SLOW = 30 * 60_000;
const NOTE = 'The plumber comes on Thursday at 3pm to fix the kitchen sink.';

describe.skipIf(!settings)(`${MODEL} (real weights, CPU)`, () => {
  let cwd: string;
  beforeAll(async () => {
    await discoverBuiltinTools();
    cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-qwen-')));
    writeFileSync(join(cwd, 'notes.txt'), `${NOTE}\n`);
  });

  it(
    'calls read_file in its own tool-call format, then answers from the result (not the same call again)',
    async () => {
      const provider = createLocalProvider(settings!);
      const tools = getToolDefinitions({ enabledToolsets: ['file', 'terminal'], quiet: true });
      // The conversation a run starts from: tether's own system prompt and the task.
      const messages: ChatMessage[] = initialMessages({
        task: 'Read notes.txt and tell me what it says',
        model: MODEL,
        cwd,
      });
      const first = await provider.complete({ model: MODEL, messages, tools }, new AbortController().signal);
      const call = first.message.tool_calls?.[0];
      expect(call?.function.name).toBe('read_file');
      const args = JSON.parse(call!.function.arguments) as { path: string };
      expect(registry.get('read_file')!.validate(args)).toMatchObject({ ok: true });
      expect(args.path).toMatch(/notes\.txt$/);
      const result = await registry.dispatch('read_file', args, { taskId: 'qwen-test', cwd });
      messages.push(first.message, { role: 'tool', tool_call_id: call!.id, content: result });
      const second = await provider.complete({ model: MODEL, messages, tools }, new AbortController().signal);
      expect(second.message.tool_calls).toBeUndefined();
      expect(second.message.content).toMatch(/thursday/i);
    },
    SLOW,
  );

  it(
    `tether run --model ${MODEL} "Read notes.txt and tell me what it says" answers with the file's content`,
    async () => {
      const r = await runCli(['run', '--model', MODEL, '--json', 'Read notes.txt and tell me what it says'], {
        cwd,
        env: {
          TEMPORAL_ADDRESS: inject('temporalAddress'),
          TETHER_TASK_QUEUE: `qwen-${randomUUID()}`,
          TETHER_HOME: mkdtempSync(join(tmpdir(), 'tether-qwen-home-')),
        },
      });
      expect(r.code, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout) as { status: string; answer: string; toolCalls: number };
      expect(out.status).toBe('completed');
      expect(out.toolCalls).toBeGreaterThanOrEqual(1);
      expect(out.answer).toMatch(/thursday/i);
      expect(out.answer).toMatch(/plumber|sink/i);
    },
    SLOW,
  );

  it(
    "the README's Quick start line, with no model configured, answers what the project is",
    async () => {
      const readme = fileURLToPath(new URL('../README.md', import.meta.url));
      // The first command of the Quick start, as a person copies it: `npm ci && npx tether run "<task>"`.
      const quick = /## Quick start[\s\S]*?```sh\n(.*)\n/.exec(readFileSync(readme, 'utf8'))?.[1] ?? '';
      const task = /^npm ci && npx tether run "([^"]+)"$/.exec(quick)?.[1];
      expect(task, `the Quick start's line: ${quick}`).toBeDefined();
      const clone = realpathSync(mkdtempSync(join(tmpdir(), 'tether-quick-start-')));
      copyFileSync(readme, join(clone, 'README.md'));
      const r = await runCli(['run', '--json', task!], {
        cwd: clone,
        env: {
          TEMPORAL_ADDRESS: inject('temporalAddress'),
          TETHER_HOME: mkdtempSync(join(tmpdir(), 'tether-quick-start-home-')),
          // No model setting of any kind: the default is what is tested.
          TETHER_MODEL: '',
          OPENAI_API_KEY: '',
          OPENAI_BASE_URL: '',
        },
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(new RegExp(`model ${MODEL} \\(Qwen2\\.5-Coder-1\\.5B-Instruct`));
      const out = JSON.parse(r.stdout) as { status: string; answer: string; toolCalls: number };
      expect(out.status).toBe('completed');
      expect(out.toolCalls).toBeGreaterThanOrEqual(1);
      // What the project is: a durable runner for tool-using AI agents, on Temporal.
      expect(out.answer).toMatch(/durable|temporal/i);
      expect(out.answer).toMatch(/agent/i);
    },
    SLOW,
  );
});
