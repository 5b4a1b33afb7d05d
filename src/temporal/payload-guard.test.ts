// The payload guard in the SDK's activity environment: a result over the limit is a non-retryable failure naming the sizes.
import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';
import { payloadGuard } from './payload-guard.js';

describe('payloadGuard', () => {
  const env = new MockActivityEnvironment({ activityType: 'runTool' }, { interceptors: [payloadGuard(1_000)] });

  it('passes a result under the limit', async () => {
    await expect(env.run(async () => 'x'.repeat(500))).resolves.toBe('x'.repeat(500));
  });

  it('fails a result over the limit with Payload.TooLarge', async () => {
    await expect(env.run(async () => ({ result: 'é'.repeat(1_000) }))).rejects.toMatchObject({
      type: 'Payload.TooLarge',
      nonRetryable: true,
      message: expect.stringMatching(/^the result of runTool was 2 KB, over Temporal's payload limit \(1000 bytes\)/),
    });
  });
});
