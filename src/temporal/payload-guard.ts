// An activity interceptor that turns a result too large for Temporal into a non-retryable failure naming the sizes,
// instead of a completion the server rejects (which Temporal would retry until the run failed). Worker-only.
import { ApplicationFailure } from '@temporalio/activity';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { formatBytes, TEMPORAL_PAYLOAD_LIMIT_BYTES } from '../workflows/payload-limits.js';

/** Room for the payload's encoding and metadata around the JSON. */
const MARGIN_BYTES = 64 * 1024;

/** Bytes of the JSON the default payload converter would write for `value`. */
function jsonBytes(value: unknown): number {
  if (value === undefined) return 0;
  return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
}

/**
 * Every activity's result is checked here, so a tool that forgets to cap what it returns gives the workflow a clear
 * `Payload.TooLarge` failure (a tool error the model sees) rather than a lost turn.
 */
export function payloadGuard(limit = TEMPORAL_PAYLOAD_LIMIT_BYTES - MARGIN_BYTES): ActivityInterceptorsFactory {
  return (ctx) => ({
    inbound: {
      async execute(input, next) {
        const result = await next(input);
        const bytes = jsonBytes(result);
        if (bytes > limit) {
          throw ApplicationFailure.nonRetryable(
            `the result of ${ctx.info.activityType} was ${formatBytes(bytes)}, over Temporal's payload limit (${formatBytes(limit)}), so it was dropped`,
            'Payload.TooLarge',
          );
        }
        return result;
      },
    },
  });
}
