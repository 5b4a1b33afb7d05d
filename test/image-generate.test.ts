// image_generate through the real @fal-ai/client against a fake fal queue API on loopback.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/config.js';
import { setCurrentConfig } from '../src/config/current.js';
import { registry } from '../src/registry/index.js';
import '../src/tools/image-generate.js';
import { GOOD_FAL_KEY, startFakeFalApi, type FakeFalApi } from './support/fake-fal-api.js';

const ctx = { taskId: 'img', cwd: process.cwd() };

async function call(args: object): Promise<Record<string, unknown>> {
  return JSON.parse(await registry.dispatch('image_generate', JSON.stringify(args), ctx)) as Record<string, unknown>;
}

function available(): boolean {
  return registry.availability(registry.get('image_generate')!).available;
}

describe('image_generate (double: fake fal API on loopback)', () => {
  let fal: FakeFalApi;
  const saved = { key: process.env.FAL_KEY, base: process.env.FAL_BASE_URL };

  beforeAll(async () => {
    fal = await startFakeFalApi();
  });
  afterAll(async () => {
    await fal.close();
    for (const [name, value] of [
      ['FAL_KEY', saved.key],
      ['FAL_BASE_URL', saved.base],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });
  beforeEach(() => {
    setCurrentConfig(parseConfig({ image_gen: { model: 'fal-ai/flux/schnell' } }));
    process.env.FAL_BASE_URL = fal.url;
    process.env.FAL_KEY = GOOD_FAL_KEY;
  });

  it('is hidden without FAL_KEY, with the variable named', () => {
    delete process.env.FAL_KEY;
    expect(registry.availability(registry.get('image_generate')!)).toEqual({
      available: false,
      reason: 'missing environment variable FAL_KEY',
    });
    process.env.FAL_KEY = GOOD_FAL_KEY;
    expect(available()).toBe(true);
  });

  it('submits the prompt to the configured model, polls and returns the image URL and size', async () => {
    const out = await call({ prompt: 'an otter holding a stone', size: 'square_hd' });
    expect(out).toMatchObject({ width: 1024, height: 1024, model: 'fal-ai/flux/schnell' });
    expect(String(out.image_url)).toMatch(/^https:\/\/fal\.media\/files\/fake\/[0-9a-f-]+\.jpg$/);
    const job = fal.submits.at(-1)!;
    expect(job.model).toBe('fal-ai/flux/schnell');
    expect(job.input).toEqual({ prompt: 'an otter holding a stone', image_size: 'square_hd' });
    expect(job.polls).toBeGreaterThanOrEqual(2);
  });

  it('uses landscape_4_3 by default and the model from image_gen.model', async () => {
    setCurrentConfig(parseConfig({ image_gen: { model: 'fal-ai/flux/dev' } }));
    const out = await call({ prompt: 'a raft of otters' });
    expect(out).toMatchObject({ width: 1024, height: 768, model: 'fal-ai/flux/dev' });
    expect(fal.submits.at(-1)!.input.image_size).toBe('landscape_4_3');
  });

  it('reports a refused key and a bad size as errors', async () => {
    process.env.FAL_KEY = 'wrong';
    expect((await call({ prompt: 'x' })).error).toBe('fal refused the key (HTTP 401): check FAL_KEY');
    expect(String((await call({ prompt: 'x', size: 'huge' })).error)).toMatch(
      /Invalid arguments for tool 'image_generate'/,
    );
  });
});
