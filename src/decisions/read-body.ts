// Reads a decision's HTTP request body with a bound: an oversized one is answered with 413 (the approval gateway,
// the inbox, the codec server). Worker-only (node:http).
import type { IncomingMessage } from 'node:http';

export const MAX_BODY = 64 * 1024;
/** Up to 8 MiB an oversized body is read and dropped so the client sees the 413; past that the connection is closed after it. */
const MAX_DRAIN = 128 * MAX_BODY;

type Body = { ok: true; text: string } | { ok: false; size: number };

/**
 * Reads the body. An oversized one is still read to its end (up to MAX_DRAIN) and discarded, so the client gets
 * the 413 instead of a connection reset while it is still sending.
 */
export function readBody(req: IncomingMessage, limit = MAX_BODY): Promise<Body> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= limit) chunks.push(c);
      else if (size > Math.max(MAX_DRAIN, limit)) {
        req.pause();
        resolve({ ok: false, size });
      }
    });
    req.on('end', () =>
      resolve(size > limit ? { ok: false, size } : { ok: true, text: Buffer.concat(chunks).toString('utf8') }),
    );
    req.on('error', reject);
  });
}
