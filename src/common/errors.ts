// Error channels shared by tools and the loop: model-fixable results vs retryable infrastructure failures. Workflow-safe.

/** Stable, dotted failure types; the agent loop maps retryable ones to Temporal ApplicationFailure types. */
export type TetherErrorCode =
  | 'Tool.Timeout'
  | 'Tool.Cancelled'
  | 'Environment.Unreachable'
  | 'Config.Invalid';

/**
 * An infrastructure or configuration failure. Dispatch lets a retryable one through (it is not the model's
 * to fix) so the activity fails and Temporal retries it; everything else becomes a JSON error result.
 */
export class TetherError extends Error {
  override readonly name = 'TetherError';
  constructor(
    readonly code: TetherErrorCode,
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

export function isRetryable(err: unknown): err is TetherError {
  return err instanceof TetherError && err.retryable;
}

/** The one shape of an error result the model sees. */
export function toolError(message: string): string {
  return JSON.stringify({ error: message });
}

export function describeError(err: unknown): { type: string; message: string } {
  if (err instanceof Error) return { type: err.name || err.constructor.name, message: err.message };
  return { type: typeof err, message: String(err) };
}
