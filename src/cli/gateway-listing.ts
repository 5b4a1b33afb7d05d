// The gateway's `GET /approvals`: what waits for a person, read from visibility (works with no worker running),
// for a caller that proves it holds approvals.secret by signing the request line and a fresh timestamp. Worker-only.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Client } from '@temporalio/client';
import { MAX_SKEW_MS, SIGNATURE_HEADER } from '../approval/signature.js';
import { listPendingApprovals } from '../visibility/pending-approvals.js';
import { send } from './gateway-http.js';

export const TIMESTAMP_HEADER = 'x-tether-timestamp';

/** `sha256=<hex HMAC of "GET /approvals\n<timestamp>">`: a listing cannot be asked for without the secret. */
export const signListing = (secret: string, timestamp: string): string =>
  `sha256=${createHmac('sha256', secret).update(`GET /approvals\n${timestamp}`).digest('hex')}`;

const header = (req: IncomingMessage, name: string): string | undefined => {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

/** Answers GET /approvals: 401 unless signed within MAX_SKEW_MS, else `{approvals, unanswered}` as JSON. */
export async function listApprovalsRoute(
  req: IncomingMessage,
  res: ServerResponse,
  client: Client,
  secret: string,
): Promise<void> {
  const timestamp = header(req, TIMESTAMP_HEADER) ?? '';
  const signature = header(req, SIGNATURE_HEADER) ?? '';
  const expected = Buffer.from(signListing(secret, timestamp));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return send(res, 401, { error: `sign "GET /approvals\\n<${TIMESTAMP_HEADER}>" with approvals.secret` });
  if (!/^\d+$/.test(timestamp) || Math.abs(Date.now() - Number(timestamp)) > MAX_SKEW_MS)
    return send(res, 401, {
      error: `stale: ${TIMESTAMP_HEADER} must be within ${MAX_SKEW_MS / 60_000} minutes of now`,
    });
  send(res, 200, await listPendingApprovals(client));
}
