// An agent run (scripted model, real worker, real dev server) that calls a tool of a real MCP server.
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseConfig } from '../src/config/config.js';
import { closeTools } from '../src/worker.js';
import { harness, type Harness } from './support/agent-harness.js';
import { lastToolResults, startScriptedModel } from './support/scripted-model.js';

const require = createRequire(import.meta.url);
const everything = join(
  dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);
let h: Harness;

beforeAll(async () => {
  h = await harness(
    parseConfig({
      mcp_servers: { everything: { command: 'node', args: [everything, 'stdio'], include: ['echo', 'get-sum'] } },
    }),
  );
});
afterAll(async () => {
  await closeTools();
  await h.close();
});

it('offers MCP tools to the model and runs its calls through the worker', async () => {
  const model = await startScriptedModel([
    {
      toolCalls: [
        { name: 'mcp_everything_get-sum', arguments: { a: 20, b: 22 } },
        { name: 'mcp_everything_echo', arguments: { message: 'hi' } },
      ],
    },
    { content: 'The sum is 42.' },
  ]);
  const result = await h.withWorker(model.url, () =>
    h.run({ task: 'add numbers', cwd: tmpdir(), enabledToolsets: ['mcp'] }),
  );
  await model.close();
  expect(model.errors).toEqual([]);
  expect(result).toMatchObject({ status: 'completed', answer: 'The sum is 42.', toolCalls: 2 });
  expect(model.requests[0]!.tools!.map((t) => t.function.name).sort()).toEqual([
    'mcp_everything_echo',
    'mcp_everything_get-sum',
  ]);
  expect(lastToolResults(model)).toEqual([{ result: 'The sum of 20 and 22 is 42.' }, { result: 'Echo: hi' }]);
});
