// vision_analyze through a real run: the scripted model server sees the image as an image_url part (a base64 data URL
// for a task file), and a model that takes no images makes the tool unavailable with the reason.
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { harness, type Harness } from './support/agent-harness.js';
import { lastToolResults, startScriptedModel, type ChatRequest } from './support/scripted-model.js';

let h: Harness;
beforeAll(async () => {
  h = await harness();
});
afterAll(() => h.close());

const saved = { ...process.env };
afterEach(() => {
  for (const k of ['OPENAI_BASE_URL', 'OPENAI_API_KEY', 'TETHER_VISION_MODEL']) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
});

// The smallest PNG: one red pixel.
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010806000000' +
    '1f15c4890000000d49444154789c63f8cfc0f01f0005000201' +
    'e2a1d6b50000000049454e44ae426082',
  'hex',
);
const lastTool = (req: ChatRequest): string =>
  [...req.messages].reverse().find((m) => m.role === 'tool')?.content ?? '';

it('sends the image as an image_url part and returns the answer', async () => {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-vision-')));
  writeFileSync(join(cwd, 'pixel.png'), PNG);
  let seen: ChatRequest | undefined;
  let result = '';
  const model = await startScriptedModel(
    [
      { toolCalls: [{ name: 'vision_analyze', arguments: { image: 'pixel.png', question: 'What colour is it?' } }] },
      (req) => {
        result = lastTool(req);
        return { content: 'done' };
      },
    ],
    {
      'vision-scripted': (req) => {
        seen = req;
        return { content: 'a red pixel' };
      },
    },
  );
  Object.assign(process.env, {
    OPENAI_BASE_URL: model.url,
    OPENAI_API_KEY: 'test-key',
    TETHER_VISION_MODEL: 'vision-scripted',
  });
  await h.withWorker(model.url, () => h.run({ task: 'look', cwd, enabledToolsets: ['vision_tools'] }));
  const parts = seen!.messages[0]!.content as unknown as { type: string; text?: string; image_url?: { url: string } }[];
  expect(parts[0]).toEqual({ type: 'text', text: 'What colour is it?' });
  expect(parts[1]).toEqual({
    type: 'image_url',
    image_url: { url: `data:image/png;base64,${PNG.toString('base64')}` },
  });
  expect(JSON.parse(result)).toEqual({ answer: 'a red pixel', model: 'vision-scripted' });
  expect(model.errors).toEqual([]);
  await model.close();
});

it('is unavailable, saying why, when the model takes no images', async () => {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-vision-')));
  let result = '';
  const model = await startScriptedModel([
    {
      toolCalls: [
        { name: 'vision_analyze', arguments: { image: 'https://example.invalid/cat.png', question: 'cat?' } },
      ],
    },
    (req) => {
      result = lastTool(req);
      return { content: 'done' };
    },
  ]);
  Object.assign(process.env, {
    OPENAI_BASE_URL: model.url,
    OPENAI_API_KEY: 'test-key',
    TETHER_VISION_MODEL: 'local:tiny',
  });
  await h.withWorker(model.url, () => h.run({ task: 'look', cwd, enabledToolsets: ['vision'] }));
  expect(JSON.parse(result).error).toMatch(
    /vision_analyze is unavailable: the configured model local:tiny .* takes no images/,
  );
  expect(model.requests).toHaveLength(2); // no request for the image
  await model.close();
});

it('sends no place to fetch: an SVG data URL, a file:// URL and a URL with credentials are refused, and the model is not asked', async () => {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-vision-')));
  const images = [
    'data:image/svg+xml;base64,PHN2Zz48aW1hZ2UgaHJlZj0iaHR0cDovL2V4YW1wbGUuaW52YWxpZC94Ii8+PC9zdmc+',
    'data:image/png,not-base64',
    'file:///etc/passwd',
    'https://user:secret@example.invalid/cat.png',
  ];
  const model = await startScriptedModel(
    [
      {
        toolCalls: images.map((image) => ({ name: 'vision_analyze', arguments: { image, question: 'what?' } })),
      },
      { content: 'done' },
    ],
    { 'vision-scripted': { content: 'never' } },
  );
  Object.assign(process.env, {
    OPENAI_BASE_URL: model.url,
    OPENAI_API_KEY: 'test-key',
    TETHER_VISION_MODEL: 'vision-scripted',
  });
  await h.withWorker(model.url, () => h.run({ task: 'look', cwd, enabledToolsets: ['vision_tools'] }));
  const errors = (lastToolResults(model) as { error?: string }[]).map((r) => r.error);
  expect(errors[0]).toMatch(/a data URL is sent only as base64 of image\/png, image\/jpeg, image\/gif, image\/webp/);
  expect(errors[1]).toMatch(/a data URL is sent only as base64/);
  expect(errors[2]).toMatch(/only http and https URLs can be fetched, not file:/);
  expect(errors[3]).toMatch(/a URL with a user name or password is not fetched/);
  // Only the agent's own two turns: no vision request was made.
  expect(model.requests.map((r) => r.model)).toEqual(['scripted', 'scripted']);
  await model.close();
});
