// Maps what the Modal SDK throws (its error classes, raw gRPC ClientErrors, socket errors) to EnvironmentError. Worker-only.
import {
  ClientClosedError,
  ConflictError,
  InvalidError,
  NotFoundError,
  ResourceExhaustedError,
  TimeoutError,
} from 'modal';
import { EnvironmentError } from '../../types.js';
import type { EnvironmentErrorCode } from '../../types.js';

const BACKEND = 'modal';

/** gRPC status codes (the SDK passes nice-grpc's ClientError through from many calls). */
const GRPC: Record<number, EnvironmentErrorCode> = {
  1: 'Environment.Unreachable', // CANCELLED
  3: 'Environment.Config', // INVALID_ARGUMENT
  4: 'Environment.Unreachable', // DEADLINE_EXCEEDED
  5: 'Environment.Gone', // NOT_FOUND
  7: 'Environment.Config', // PERMISSION_DENIED
  8: 'Environment.Unreachable', // RESOURCE_EXHAUSTED
  9: 'Environment.Gone', // FAILED_PRECONDITION: the sandbox already finished
  12: 'Environment.Unsupported', // UNIMPLEMENTED
  14: 'Environment.Unreachable', // UNAVAILABLE
  16: 'Environment.Config', // UNAUTHENTICATED
};

function grpcCode(err: Error): number | undefined {
  const code = (err as { code?: unknown }).code;
  return err.name === 'ClientError' && typeof code === 'number' ? code : undefined;
}

function classify(err: Error): EnvironmentErrorCode {
  if (err instanceof NotFoundError || err instanceof ConflictError || err instanceof ClientClosedError)
    return 'Environment.Gone';
  if (err instanceof InvalidError) return 'Environment.Config';
  if (err instanceof ResourceExhaustedError || err instanceof TimeoutError) return 'Environment.Unreachable';
  const code = grpcCode(err);
  if (code !== undefined) return GRPC[code] ?? 'Environment.Unreachable';
  if (/missing credentials|Image build .* failed/i.test(err.message)) return 'Environment.Config';
  return 'Environment.Unreachable';
}

/**
 * `what` names the operation and the API (e.g. "creating the sandbox at https://api.modal.com:443"). During start(),
 * a NOT_FOUND means a missing app or image, not a vanished sandbox.
 */
export function modalError(err: unknown, what: string, phase: 'start' | 'run' = 'run'): EnvironmentError {
  if (err instanceof EnvironmentError) return err;
  const e = err instanceof Error ? err : new Error(String(err));
  let code = classify(e);
  if (phase === 'start' && code === 'Environment.Gone') code = 'Environment.Config';
  const prefix = code === 'Environment.Unreachable' ? `cannot reach the Modal API (${what})` : what;
  return new EnvironmentError(code, BACKEND, `${prefix}: ${e.message}`);
}
