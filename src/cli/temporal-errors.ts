// What the CLI says when Temporal cannot be reached or its namespace is missing: one line naming the variable to
// change (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE), for every command. Worker-only.
import { isGrpcServiceError, ServiceError } from '@temporalio/client';
import { NamespaceNotFoundError } from '@temporalio/common';
import type { TemporalSettings } from '../temporal/settings.js';
import { missingAttributesLine } from '../visibility/cluster-setup.js';

const INVALID_ARGUMENT = 3;
const UNAVAILABLE = 14;
const NOT_FOUND = 5;
const DEADLINE_EXCEEDED = 4;
const UNAUTHENTICATED = 16;
const PERMISSION_DENIED = 7;

function where(settings: TemporalSettings): string {
  return settings.embedded
    ? `${settings.address} (the local dev server; set TEMPORAL_ADDRESS for another)`
    : `${settings.address} (TEMPORAL_ADDRESS)`;
}

/** The gRPC status code of an error or of its causes, if any. */
function grpcCode(err: unknown): number | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth += 1) {
    if (isGrpcServiceError(e)) return e.code;
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'number') return code;
  }
  return undefined;
}

const text = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** One line for a Temporal connection or namespace failure; undefined when the error is something else. */
export function explainTemporalFailure(err: unknown, settings: TemporalSettings): string | undefined {
  const message = text(err);
  const namespace = `namespace '${settings.namespace}' does not exist on ${settings.address} (TEMPORAL_NAMESPACE): create it ('temporal operator namespace create') or set TEMPORAL_NAMESPACE`;
  if (err instanceof NamespaceNotFoundError) return namespace;
  const code = grpcCode(err);
  if (/namespace\b.*\bnot (found|exist)/i.test(message) && (code === NOT_FOUND || code === undefined)) return namespace;
  // A listing whose query names an attribute the namespace does not have: the cluster was never set up.
  const attribute = /invalid search attribute: (Tether\w+)/.exec(message);
  if (attribute && (code === INVALID_ARGUMENT || code === undefined))
    return missingAttributesLine(settings, attribute[1]!);
  if (code === UNAUTHENTICATED || code === PERMISSION_DENIED)
    return `Temporal at ${where(settings)} refused the credentials (TEMPORAL_API_KEY, TEMPORAL_TLS_CERT): ${message}`;
  if (
    code === UNAVAILABLE ||
    code === DEADLINE_EXCEEDED ||
    /Failed to connect before the deadline|ECONNREFUSED|transport error|connection refused/i.test(message)
  ) {
    return `cannot reach Temporal at ${where(settings)}: ${message.split('\n')[0]}`;
  }
  if (err instanceof ServiceError && /connect/i.test(message))
    return `cannot reach Temporal at ${where(settings)}: ${message.split('\n')[0]}`;
  return undefined;
}
