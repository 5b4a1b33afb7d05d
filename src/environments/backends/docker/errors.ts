// Turns dockerode failures (socket errors, HTTP statuses) into EnvironmentErrors that name what failed. Worker-only.
import { EnvironmentError } from '../../types.js';

/** The fields dockerode puts on its errors: a socket error has `code`, an HTTP failure `statusCode` and `json`. */
interface DockerodeError extends Error {
  code?: string;
  statusCode?: number;
  json?: { message?: string } | null;
}

const UNREACHABLE = new Set(['ENOENT', 'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTSOCK', 'EHOSTUNREACH']);

function asDockerodeError(error: unknown): DockerodeError {
  return error instanceof Error ? error : new Error(String(error));
}

/** The daemon's own sentence for an HTTP failure, without dockerode's "(HTTP code 404) no such container -" prefix. */
function daemonMessage(error: DockerodeError): string {
  const fromJson = error.json && typeof error.json === 'object' ? error.json.message : undefined;
  return (fromJson ?? error.message).trim();
}

export function isNotFound(error: unknown): boolean {
  return asDockerodeError(error).statusCode === 404;
}

/** A socket-level failure (no HTTP status): the daemon could not be reached or dropped the connection. */
export function isConnectionError(error: unknown): boolean {
  const e = asDockerodeError(error);
  return e.statusCode === undefined && e.code !== undefined;
}

/**
 * Classifies a failure of a call to the daemon at `socket`. `doing` says what was attempted ("create container
 * tether-x"); an error that is not a connection failure becomes `fallback` (usually Unreachable: the daemon
 * answered, but with a server error that a retry may cure).
 */
export function dockerError(
  error: unknown,
  socket: string,
  doing: string,
  fallback: EnvironmentError['code'] = 'Environment.Unreachable',
): EnvironmentError {
  if (error instanceof EnvironmentError) return error;
  const e = asDockerodeError(error);
  if (e.code === 'EACCES') {
    return new EnvironmentError(
      'Environment.Config',
      'docker',
      `permission denied on the Docker socket ${socket} (${e.message}): run the worker as a member of the docker group or set terminal.docker.socket_path`,
    );
  }
  if (e.statusCode === undefined && (e.code === undefined || UNREACHABLE.has(e.code))) {
    return new EnvironmentError(
      'Environment.Unreachable',
      'docker',
      `cannot reach the Docker daemon at ${socket}: ${e.message}`,
    );
  }
  const status = e.statusCode === undefined ? '' : ` (HTTP ${e.statusCode})`;
  return new EnvironmentError(fallback, 'docker', `${doing} failed${status}: ${daemonMessage(e)}`);
}
