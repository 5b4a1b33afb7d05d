// Turns a Daytona SDK failure into an EnvironmentError that names what failed. Worker-only.
import { EnvironmentError } from '../../types.js';

const BACKEND = 'daytona';

function statusOf(error: unknown): number | undefined {
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' ? status : undefined;
}

function messageOf(error: unknown): string {
  // The log socket rejects with a WebSocket ErrorEvent, which carries a message but is not an Error.
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : String(error);
}

/**
 * Maps by HTTP status rather than by the SDK's error classes: the SDK ships CommonJS and ESM copies, and a class
 * from one copy is not `instanceof` the other.
 */
export function daytonaError(error: unknown, what: string, apiUrl: string): EnvironmentError {
  if (error instanceof EnvironmentError) return error;
  const status = statusOf(error);
  const message = messageOf(error);
  if (status === undefined) {
    // No response at all: refused, reset, DNS, a timeout, or a log stream that broke off.
    return new EnvironmentError(
      'Environment.Unreachable',
      BACKEND,
      `cannot reach the Daytona API at ${apiUrl}: ${what}: ${message}`,
    );
  }
  if (status === 401 || status === 403) {
    return new EnvironmentError(
      'Environment.Config',
      BACKEND,
      `DAYTONA_API_KEY was refused by ${apiUrl} (${status}): ${message}`,
    );
  }
  if (status === 404 || status === 410) {
    return new EnvironmentError(
      'Environment.Gone',
      BACKEND,
      `${what}: the sandbox no longer exists (${status}: ${message})`,
    );
  }
  if (status === 400 || status === 422) {
    // The API rejects a bad image, snapshot, target or resource request this way.
    return new EnvironmentError(
      'Environment.Config',
      BACKEND,
      `${what}: the Daytona API rejected the request (${status}): ${message}`,
    );
  }
  return new EnvironmentError(
    'Environment.Unreachable',
    BACKEND,
    `cannot reach the Daytona API at ${apiUrl}: ${what}: ${status} ${message}`,
  );
}

export function daytonaGone(id: string, state: string): EnvironmentError {
  return new EnvironmentError('Environment.Gone', BACKEND, `sandbox ${id} is ${state}, not started`);
}
