// InboxAuth: the token check, sessions by cookie (unknown, forged and expired ones refused) and what an action
// needs (same-origin Origin, the session's CSRF token). Pure apart from node:crypto.
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { InboxAuth } from './auth.js';

const req = (headers: Record<string, string>): IncomingMessage => ({ headers }) as unknown as IncomingMessage;

describe('InboxAuth', () => {
  const auth = new InboxAuth('the-right-token-of-enough-length-1234567', 8787);

  it('accepts only the exact token', () => {
    expect(auth.tokenMatches('the-right-token-of-enough-length-1234567')).toBe(true);
    expect(auth.tokenMatches('the-right-token-of-enough-length-123456')).toBe(false);
    expect(auth.tokenMatches('')).toBe(false);
  });

  it('finds a session by its cookie; a forged, foreign-port or expired one is no session', () => {
    const { id, cookie } = auth.open(1_000);
    expect(cookie).toMatch(/^tether_inbox_8787=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\/; Max-Age=43200$/);
    expect(auth.session(req({ cookie: `other=1; tether_inbox_8787=${id}` }), 2_000)).toBeDefined();
    expect(auth.session(req({ cookie: `tether_inbox_8787=${id}x` }), 2_000)).toBeUndefined();
    expect(auth.session(req({ cookie: `tether_inbox_9999=${id}` }), 2_000)).toBeUndefined();
    expect(auth.session(req({}), 2_000)).toBeUndefined();
    expect(auth.session(req({ cookie: `tether_inbox_8787=${id}` }), 1_000 + 13 * 3600_000)).toBeUndefined();
  });

  it('lets an action through only from its own origin with the CSRF token', () => {
    const { id } = auth.open();
    const s = auth.session(req({ cookie: `tether_inbox_8787=${id}` }))!;
    const base = { host: '127.0.0.1:8787', origin: 'http://127.0.0.1:8787', 'x-csrf-token': s.csrf };
    expect(auth.actionRefusal(req(base), s)).toBeUndefined();
    expect(auth.actionRefusal(req({ ...base, origin: 'http://127.0.0.1:9999' }), s)).toMatch(/^cross-origin/);
    expect(auth.actionRefusal(req({ ...base, origin: 'null' }), s)).toMatch(/^cross-origin/);
    expect(auth.actionRefusal(req({ host: base.host, 'x-csrf-token': s.csrf }), s)).toMatch(/^no Origin/);
    expect(auth.actionRefusal(req({ ...base, 'sec-fetch-site': 'same-site' }), s)).toMatch(/^cross-site/);
    expect(auth.actionRefusal(req({ ...base, 'x-csrf-token': 'guess' }), s)).toBe('missing or wrong CSRF token');
    const { host, origin } = base;
    expect(auth.actionRefusal(req({ host, origin }), s)).toBe('missing or wrong CSRF token');
  });
});
