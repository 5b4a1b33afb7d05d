// Which model a run gets with no model named, and the line saying so when a small machine gets the small one.
import { describe, expect, it } from 'vitest';
import { chooseModelWithReason } from './default-model.js';

const GiB = 1024 ** 3;
const plenty = (): number => 16 * GiB;

describe('chooseModelWithReason', () => {
  it('takes --model, then TETHER_MODEL, then config.yaml, then gpt-4o-mini with an endpoint', () => {
    const env = { TETHER_MODEL: 'env-model', OPENAI_API_KEY: 'k' };
    expect(chooseModelWithReason('flag-model', 'cfg', env, plenty)).toMatchObject({
      model: 'flag-model',
      from: '--model',
    });
    expect(chooseModelWithReason(undefined, 'cfg', env, plenty)).toMatchObject({ model: 'env-model' });
    expect(chooseModelWithReason(undefined, 'cfg', { OPENAI_API_KEY: 'k' }, plenty)).toMatchObject({
      model: 'cfg',
      from: 'config.yaml model:',
    });
    expect(
      chooseModelWithReason(undefined, undefined, { OPENAI_BASE_URL: 'http://127.0.0.1:8/v1' }, plenty).model,
    ).toBe('gpt-4o-mini');
  });

  it('with nothing configured: Qwen2.5-Coder-1.5B, or local:tiny with one line below 3 GiB free', () => {
    expect(chooseModelWithReason(undefined, undefined, {}, plenty)).toEqual({
      model: 'local:qwen2.5-coder-1.5b',
      from: 'the local default: no model is configured',
    });
    const small = chooseModelWithReason(undefined, undefined, {}, () => 2 * GiB);
    expect(small.model).toBe('local:tiny');
    expect(small.note).toMatch(
      /^2\.0 GiB of memory is free, less than the 3\.0 GiB local:qwen2\.5-coder-1\.5b needs: using local:tiny/,
    );
  });
});
