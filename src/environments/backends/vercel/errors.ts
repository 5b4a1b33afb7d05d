// Turns a Vercel Sandbox SDK failure into an EnvironmentError that names what failed. Worker-only.
import { EnvironmentError } from '../../types.js';

const BACKEND = 'vercel_sandbox';

/** The HTTP status of the SDK's APIError (duck-typed: the SDK ships CommonJS and ESM copies of the class). */
function vercelStatus(error: unknown): number | undefined {
  const status = (error as { response?: { status?: unknown } } | null)?.response?.status;
  return typeof status === 'number' ? status : undefined;
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // fetch says only "fetch failed"; the reason (ECONNREFUSED, ENOTFOUND, ...) is its cause.
  const cause = (error as { cause?: unknown }).cause;
  const detail = cause instanceof Error ? ` (${cause.message})` : '';
  return `${error.message || error.name}${detail}`;
}

export function vercelError(error: unknown, what: string, apiUrl: string): EnvironmentError {
  if (error instanceof EnvironmentError) return error;
  const status = vercelStatus(error);
  const message = describe(error);
  if (status === undefined) {
    if (error instanceof Error && /credentials|OIDC/i.test(error.message)) {
      return new EnvironmentError('Environment.Config', BACKEND, `${what}: ${error.message}`);
    }
    if (error instanceof Error && error.name === 'StreamError') {
      // The API ends a log stream with an error line when the sandbox stops under it.
      return new EnvironmentError('Environment.Gone', BACKEND, `${what}: the sandbox stopped (${message})`);
    }
    return new EnvironmentError(
      'Environment.Unreachable',
      BACKEND,
      `cannot reach the Vercel Sandbox API at ${apiUrl}: ${what}: ${message}`,
    );
  }
  if (status === 401 || status === 403) {
    return new EnvironmentError(
      'Environment.Config',
      BACKEND,
      `the Vercel token (VERCEL_TOKEN or VERCEL_OIDC_TOKEN) was refused by ${apiUrl} (${status}): ${message}`,
    );
  }
  if (status === 404 || status === 410) {
    return new EnvironmentError(
      'Environment.Gone',
      BACKEND,
      `${what}: the sandbox is stopped or gone (${status}: ${message})`,
    );
  }
  if (status === 400 || status === 422) {
    return new EnvironmentError(
      'Environment.Config',
      BACKEND,
      `${what}: the Vercel Sandbox API rejected the request (${status}): ${message}`,
    );
  }
  return new EnvironmentError(
    'Environment.Unreachable',
    BACKEND,
    `cannot reach the Vercel Sandbox API at ${apiUrl}: ${what}: ${status} ${message}`,
  );
}
