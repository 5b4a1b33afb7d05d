// The one error base (TetherError with a code) and the error channels: model-fixable results vs retryable infrastructure failures. Workflow-safe.

/** Stable, dotted failure types; the agent loop maps retryable ones to Temporal ApplicationFailure types. */
export type TetherErrorCode =
  | 'Tool.Timeout'
  | 'Tool.Cancelled'
  /** A tool's parameter schema cannot be used (registration fails). */
  | 'Tool.BadSchema'
  /** A search_files regular expression ran too long and was stopped. */
  | 'Tool.RegexTimeout'
  /** A file tool's path resolves outside the working directory. */
  | 'Path.OutsideWorkdir'
  /** The backend could not be reached (daemon down, host unreachable, API down). Retryable. */
  | 'Environment.Unreachable'
  /** The environment existed and is gone (container killed, sandbox stopped). Retryable: recreated on the next command. */
  | 'Environment.Gone'
  /** The backend's configuration is wrong (missing credentials, bad image). Not retryable. */
  | 'Environment.Config'
  /** The backend cannot do what was asked (a PTY where it has none). Not retryable; the model is told. */
  | 'Environment.Unsupported'
  /** A page could not be fetched (HTTP error, redirect loop, timeout, unsupported content). */
  | 'Web.FetchFailed'
  /** The address policy refuses a URL (scheme, private address). */
  | 'Web.AddressRefused'
  /** A web search provider failed or refused. */
  | 'Web.SearchFailed'
  /** The task's browser page crashed or was closed. */
  | 'Browser.Gone'
  | 'Config.Invalid'
  /** No checkpoint matches what was asked (src/checkpoints). */
  | 'Checkpoint.NotFound'
  /** A checkpoint or a rollback could not be made (the directory, the store). */
  | 'Checkpoint.Failed'
  /** The command line was used wrongly; the CLI prints the message and exits non-zero. */
  | 'Cli.Usage';

/** Codes that Temporal should retry unless the thrower says otherwise: the infrastructure, not the request, failed. */
const RETRYABLE: ReadonlySet<TetherErrorCode> = new Set(['Environment.Unreachable', 'Environment.Gone']);

/**
 * The one error base of tether. An infrastructure failure that is retryable passes dispatch (it is not the
 * model's to fix) so the activity fails and Temporal retries it; everything else becomes a JSON error result.
 */
export class TetherError extends Error {
  override readonly name: string = 'TetherError';
  readonly retryable: boolean;
  constructor(
    readonly code: TetherErrorCode,
    message: string,
    retryable?: boolean,
  ) {
    super(message);
    this.retryable = retryable ?? RETRYABLE.has(code);
  }
}

/** A TetherError, of one of `codes` when any are given. */
export function isTetherError(err: unknown, ...codes: TetherErrorCode[]): err is TetherError {
  return err instanceof TetherError && (codes.length === 0 || codes.includes(err.code));
}

export function isRetryable(err: unknown): err is TetherError {
  return err instanceof TetherError && err.retryable;
}

/** The one shape of an error result the model sees. */
export function toolError(message: string): string {
  return JSON.stringify({ error: message });
}

/** The type (a TetherError's code, else the error's name) and message of anything thrown. */
export function describeError(err: unknown): { type: string; message: string } {
  if (err instanceof TetherError) return { type: err.code, message: err.message };
  if (err instanceof Error) return { type: err.name || err.constructor.name, message: err.message };
  return { type: typeof err, message: String(err) };
}
