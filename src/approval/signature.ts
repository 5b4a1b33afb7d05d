// Signed approval decisions for the gateway: HMAC-SHA256 over the raw body with a shared secret, a timestamp
// window and single-use nonces, so unsigned, forged and replayed decisions are refused. Worker-only (node:crypto).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { APPROVAL_CHOICES, type ApprovalDecision } from '../common/approval-types.js';
import { parseStrictJson } from './strict-json.js';

export const SIGNATURE_HEADER = 'x-tether-signature';
/** How old (or how far in the future) a signed decision may be. */
export const MAX_SKEW_MS = 5 * 60_000;

/** `sha256=<hex HMAC of the raw body>`, the value of the X-Tether-Signature header. */
export const signBody = (secret: string, body: string): string =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

interface SignedDecision extends ApprovalDecision {
  workflowId: string;
  /** Milliseconds since the epoch when it was signed. */
  timestamp: number;
  /** Unique per decision: a second use is a replay. */
  nonce: string;
}

type Verified = { ok: true; decision: SignedDecision } | { ok: false; status: 400 | 401 | 409; error: string };

/** Where nonces are remembered: in memory (tests) or on disk (`tether serve`, see nonce-store.ts). */
export interface Nonces {
  /** False when the nonce was used already. */
  use(nonce: string, now: number): boolean;
}

/** The longest nonce accepted: the book stores each one, so a signer cannot make it store megabytes. */
const MAX_NONCE_CHARS = 200;

const OPTIONAL_TEXT = ['reason', 'callId', 'argsDigest', 'by'] as const;

export function verifySignedDecision(
  body: string,
  signature: string | undefined,
  secret: string,
  nonces: Nonces,
  now = Date.now(),
): Verified {
  if (!signature) return { ok: false, status: 401, error: `unsigned: the ${SIGNATURE_HEADER} header is missing` };
  const expected = Buffer.from(signBody(secret, body));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return { ok: false, status: 401, error: 'bad signature: the body was not signed with the shared secret' };
  let parsed: unknown;
  try {
    // A key given twice is refused: what the signer meant must not depend on which copy a reader keeps.
    parsed = parseStrictJson(body);
  } catch (err) {
    return { ok: false, status: 400, error: `body is not JSON, or holds a key twice: ${(err as Error).message}` };
  }
  // A signer can still send nonsense: `null`, a list, a number. Only an object is a decision.
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    const got = parsed === null ? 'null' : Array.isArray(parsed) ? 'an array' : typeof parsed;
    const error = `body must be a JSON object with workflowId, approvalId, choice, timestamp and nonce (got ${got})`;
    return { ok: false, status: 400, error };
  }
  const d = parsed as Partial<SignedDecision>;
  const missing = (['workflowId', 'approvalId', 'nonce'] as const).filter(
    (k) => typeof d[k] !== 'string' || d[k] === '',
  );
  if (missing.length > 0) return { ok: false, status: 400, error: `missing or empty: ${missing.join(', ')}` };
  const notText = OPTIONAL_TEXT.filter((k) => d[k] !== undefined && typeof d[k] !== 'string');
  if (notText.length > 0) return { ok: false, status: 400, error: `must be strings when given: ${notText.join(', ')}` };
  if (d.nonce!.length > MAX_NONCE_CHARS)
    return { ok: false, status: 400, error: `nonce is longer than ${MAX_NONCE_CHARS} characters` };
  if (!APPROVAL_CHOICES.includes(d.choice as never))
    return { ok: false, status: 400, error: `choice must be one of ${APPROVAL_CHOICES.join(', ')}` };
  if (typeof d.timestamp !== 'number' || Math.abs(now - d.timestamp) > MAX_SKEW_MS)
    return { ok: false, status: 401, error: `stale: timestamp must be within ${MAX_SKEW_MS / 60_000} minutes of now` };
  if (!nonces.use(d.nonce!, now))
    return { ok: false, status: 409, error: `replayed: nonce ${d.nonce} was used already` };
  return { ok: true, decision: d as SignedDecision };
}
