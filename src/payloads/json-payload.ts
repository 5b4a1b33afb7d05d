// Reads a Temporal payload that the default data converter wrote (json/plain, or binary/null for undefined) straight
// from its protobuf fields, without loading the SDK's converters; one sealed by payload encryption is opened first
// when this process has the key. Worker-only.
import { payloadKeyring } from './encryption-settings.js';
import { isEncrypted, openPayload } from './payload-cipher.js';

/** A payload as protobufjs decodes it (message instance or plain object: both have these fields). */
export interface RawPayload {
  metadata?: Record<string, Uint8Array> | null;
  data?: Uint8Array | null;
}

/** The decoded value, or `{ ok: false }` for an encoding other than the default converter's JSON. */
export function jsonPayload(raw: RawPayload | null | undefined): { ok: true; value: unknown } | { ok: false } {
  let p = raw;
  if (p && isEncrypted(p)) {
    try {
      p = openPayload(p, payloadKeyring());
    } catch {
      // No key here (or not this one): the SDK's client meets it too, and says so naming the setting.
      return { ok: false };
    }
  }
  const encoding = p?.metadata?.encoding ? Buffer.from(p.metadata.encoding).toString('utf8') : undefined;
  if (encoding === 'binary/null') return { ok: true, value: undefined };
  if (encoding !== 'json/plain') return { ok: false };
  try {
    return { ok: true, value: JSON.parse(Buffer.from(p?.data ?? new Uint8Array()).toString('utf8')) as unknown };
  } catch {
    return { ok: false };
  }
}

/** A protobuf int64 as a number: a plain number (decoded with `longs: Number`) or a Long object. */
export function int64(v: unknown): number {
  if (typeof v === 'number') return v;
  if (v && typeof (v as { toNumber?: unknown }).toNumber === 'function')
    return (v as { toNumber(): number }).toNumber();
  return Number(v ?? 0);
}

/** A google.protobuf.Timestamp as a Date (undefined when absent). */
export function timestamp(t: { seconds?: unknown; nanos?: number | null } | null | undefined): Date | undefined {
  if (!t) return undefined;
  return new Date(int64(t.seconds) * 1000 + Math.floor((t.nanos ?? 0) / 1e6));
}

/** WorkflowExecutionStatus of the Temporal API (enums/v1/workflow.proto), as the SDK names its values. */
export const EXECUTION_STATUS: Record<number, string> = {
  0: 'UNSPECIFIED',
  1: 'RUNNING',
  2: 'COMPLETED',
  3: 'FAILED',
  4: 'CANCELLED',
  5: 'TERMINATED',
  6: 'CONTINUED_AS_NEW',
  7: 'TIMED_OUT',
  8: 'PAUSED',
};
