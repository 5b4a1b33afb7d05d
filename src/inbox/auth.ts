// Who may use the inbox: the login token (compared in constant time) opens a session held in memory; a session
// cookie (HttpOnly, SameSite=Strict) names it; actions also need the session's CSRF token and a same-origin
// Origin header. Worker-only.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
const MAX_SESSIONS = 1000;

interface Session {
  csrf: string;
  expires: number;
}

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/** Equal strings, in time that does not depend on where they differ. */
function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}

function cookies(req: IncomingMessage): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) out.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  return out;
}

export class InboxAuth {
  private readonly sessions = new Map<string, Session>();
  /** Cookies are shared by every port of a host: the port in the name keeps two gateways' sessions apart. */
  readonly cookieName: string;

  constructor(
    private readonly token: string,
    port: number,
  ) {
    this.cookieName = `tether_inbox_${port}`;
  }

  tokenMatches(given: string): boolean {
    return sameSecret(given, this.token);
  }

  /** A new session: its id (for the cookie) and its CSRF token (for the page). */
  open(now = Date.now()): { id: string; cookie: string } {
    for (const [id, s] of this.sessions) if (s.expires < now) this.sessions.delete(id);
    // Map order is insertion order: past the cap the oldest session goes.
    if (this.sessions.size >= MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value ?? '');
    const id = randomBytes(32).toString('base64url');
    this.sessions.set(id, { csrf: randomBytes(32).toString('base64url'), expires: now + SESSION_TTL_MS });
    const cookie = `${this.cookieName}=${id}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${SESSION_TTL_MS / 1000}`;
    return { id, cookie };
  }

  /** The request's session, or undefined (no cookie, an unknown or expired one). */
  session(req: IncomingMessage, now = Date.now()): Session | undefined {
    const id = cookies(req).get(this.cookieName);
    if (!id) return undefined;
    const s = this.sessions.get(id);
    if (!s) return undefined;
    if (s.expires < now) {
      this.sessions.delete(id);
      return undefined;
    }
    return s;
  }

  /**
   * Why an action (a POST) is refused, or undefined when it may go on: it must come from a page of this server
   * (Origin equal to the Host it was sent to) and carry the session's CSRF token.
   */
  actionRefusal(req: IncomingMessage, s: Session): string | undefined {
    const origin = req.headers.origin;
    const host = req.headers.host;
    if (!origin || !host) return 'no Origin header: actions are accepted only from the inbox page';
    if (origin !== `http://${host}`) return `cross-origin request refused (Origin ${origin})`;
    const fetchSite = req.headers['sec-fetch-site'];
    if (fetchSite !== undefined && fetchSite !== 'same-origin')
      return `cross-site request refused (${String(fetchSite)})`;
    const given = req.headers['x-csrf-token'];
    if (typeof given !== 'string' || !sameSecret(given, s.csrf)) return 'missing or wrong CSRF token';
    return undefined;
  }
}
