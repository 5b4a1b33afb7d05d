// One HTTP request the egress proxy read, judged: what it does (read or write, access.ts), whether an allow entry,
// command_allowlist or this run's session covers it, and otherwise the run's person, shown its method, URL, content
// type, body size and first bytes. The body's first bytes are read only when a person must see them, and never more
// than HEAD_BYTES of it is held. Worker-only.
import type { IncomingMessage } from 'node:http';
import type { EgressVia } from '../../common/egress-types.js';
import { escapeBytes, normalPath, overridesMethod, requestAccess } from './access.js';
import type { Attribution, EgressGate } from './gate.js';
import { NO_BODY_READ, type BodyHead } from './relay.js';
import type { Target } from './target.js';

/** What is read of a body before asking: enough to show its start, never the whole of a large one. */
const HEAD_BYTES = 64 * 1024;
/** How long a slow client may take to send those bytes before it is asked about with what came. */
const HEAD_MS = 5_000;
const SHOWN_BYTES = 256;
const URL_CHARS = 2_000;

export const NO_BODY: BodyHead = { chunks: [], bytes: 0, ended: true };

/**
 * Text from the request (its URL, its content type) as the approval shows it: quotes, backslashes, spaces, control
 * and non-ASCII characters (and, for the content type, which is shown in parentheses, `(`, `)` and `,`)
 * percent-encoded, so it cannot close a quote or pass for the approval's own words.
 */
export function shown(text: string, max: number, inParentheses = false): string {
  const unsafe = inParentheses ? /[^\x21-\x7e]|["\\(),]/gu : /[^\x21-\x7e]|["\\]/gu;
  const safe = text.replace(unsafe, (c) =>
    [...Buffer.from(c, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
  );
  return safe.length > max ? `${safe.slice(0, max)}…` : safe;
}

/** Whether a request carries a body (Content-Length above 0, or Transfer-Encoding). */
export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** Reads up to `max` bytes of the body (or all of a shorter one), then pauses the request where it is. */
export function readBodyHead(req: IncomingMessage, max = HEAD_BYTES, ms = HEAD_MS): Promise<BodyHead> {
  if (!hasBody(req)) return Promise.resolve(NO_BODY);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    const stop = (ended: boolean): void => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onEnd);
      req.pause();
      resolve({ chunks, bytes, ended });
    };
    const onData = (c: Buffer): void => {
      chunks.push(c);
      bytes += c.length;
      if (bytes >= max) stop(false);
    };
    const onEnd = (): void => stop(true);
    const timer = setTimeout(() => stop(false), ms);
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onEnd);
  });
}

export type Judged =
  { allow: true; by: string; body: BodyHead } | { allow: false; by: string; reason: string; body: BodyHead };

/**
 * The decision on one request to `t` (already allowed request by request). `url` is what the approval shows:
 * `https://host/path?query`; `target` is the request target as sent (its path is what entries and rules match).
 */
export async function judgeRequest(
  gate: EgressGate,
  t: Target,
  via: EgressVia,
  who: Attribution,
  req: IncomingMessage,
  o: { url: string; target: string; gone: AbortSignal },
): Promise<Judged> {
  const method = req.method ?? 'GET';
  const path = normalPath(o.target);
  const contentType = req.headers['content-type'];
  const access = requestAccess({
    method,
    path: o.target,
    contentType,
    body: hasBody(req),
    upgrade: req.headers.upgrade !== undefined,
    override: overridesMethod(req.headers, o.target),
  });
  const covered = gate.requestCovered(t, method, access, path, who);
  // Covered: nothing is read ahead; the body streams through as it comes.
  if (covered) return { allow: true, by: covered, body: NO_BODY_READ };
  const body = await readBodyHead(req);
  const length = Number(req.headers['content-length']);
  const bodyBytes = Number.isFinite(length) ? length : body.ended ? body.bytes : undefined;
  const d = await gate.decideRequest(
    t,
    {
      method,
      url: shown(o.url, URL_CHARS),
      path,
      access,
      ...(contentType !== undefined ? { contentType: shown(contentType, 200, true) } : {}),
      ...(bodyBytes !== undefined ? { bodyBytes } : {}),
      head: escapeBytes(Buffer.concat(body.chunks), SHOWN_BYTES),
    },
    who,
    via,
    o.gone,
  );
  return d.allow ? { allow: true, by: d.by, body } : { allow: false, by: d.by, reason: d.reason, body };
}
