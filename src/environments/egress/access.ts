// What one HTTP request the egress proxy read does: a read (GET, HEAD, OPTIONS without a body, and git's fetch) or a
// write (everything else), and its path in the one form a path prefix is matched against. Worker-only (pure).
import { pathCovered } from '../../common/egress-types.js';

export type Access = 'read' | 'write';

/** Methods that only read, when they carry no body. */
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * git's fetch over smart HTTP posts its negotiation (wants and haves) here; a push posts to git-receive-pack, a
 * write. Matched with git's own request content type, so a form posted to a path of that name is still a write.
 */
const GIT_FETCH = { suffix: '/git-upload-pack', contentType: 'application/x-git-upload-pack-request' };

export interface RequestFacts {
  method: string;
  /** The request target as sent (path and query); git's fetch is a plain path with no query. */
  path: string;
  contentType?: string;
  /** A body follows (Content-Length above 0, or Transfer-Encoding). */
  body: boolean;
  /** An Upgrade (websocket): what follows is a stream the proxy does not read. */
  upgrade: boolean;
  /** It asks to be read as another method (a method-override header or a `_method` parameter). */
  override?: boolean;
}

/** Headers and a query parameter frameworks (Express, Rails, Laravel, Symfony, ASP.NET) read as the real method. */
const OVERRIDE_HEADERS = ['x-http-method-override', 'x-http-method', 'x-method-override'];
const OVERRIDE_PARAM = /[?&;]_method=/i;

/** Whether a request asks to be read as another method than the one it names. */
export function overridesMethod(headers: Record<string, unknown>, target: string): boolean {
  return OVERRIDE_HEADERS.some((h) => headers[h] !== undefined) || OVERRIDE_PARAM.test(target);
}

/**
 * read or write. A read method with a body is a write (a body is data leaving), and so is an upgrade (after it the
 * proxy reads nothing more), and so is a request asking to be read as another method. git's fetch is a POST that
 * reads, on a plain path without a query only (`/api/deploy;/x/git-upload-pack` is routed to /api/deploy by servers
 * that strip `;` parameters).
 */
export function requestAccess(r: RequestFacts): Access {
  if (r.upgrade || r.override) return 'write';
  if (READ_METHODS.has(r.method)) return r.body ? 'write' : 'read';
  if (
    r.method === 'POST' &&
    normalPath(r.path) === r.path &&
    r.path.endsWith(GIT_FETCH.suffix) &&
    r.contentType?.split(';')[0]!.trim().toLowerCase() === GIT_FETCH.contentType
  )
    return 'read';
  return 'write';
}

/** Characters a path in normal form may hold as they are: RFC 3986's path characters without `;` (and `%` escapes). */
const PLAIN_PATH = /^[A-Za-z0-9\-._~!$&'()*+,=:@/%]*$/;
/** What an escape may not stand for: a separator, a dot, `;`, `%` itself (a second decoding), `?`, `#`, controls. */
const ESCAPED_FORBIDDEN = /[/\\.;%?#]/;

/**
 * The request target's path, if it is in normal form: starting with `/`, printable ASCII from RFC 3986's path
 * characters only, no `;` (Tomcat, Jetty and Spring read `..;` as `..` and strip `;params` before routing), no `.`
 * or `..` segment, no empty segment, and no escape (`%XX`) that stands for a separator, a dot, `;`, `%` (decoded
 * twice: `%252e`), `?`, `#`, a control or a non-ASCII byte (overlong `%c0%ae`, full-width dots), nor a broken
 * escape (`%u002e`). Servers decode and resolve all of those differently. Otherwise undefined: a path-limited entry
 * never covers it, nor is it git's fetch, so the request is asked about, showing the path as sent.
 */
export function normalPath(target: string): string | undefined {
  // A fragment is never sent by a client; left in a target, servers such as Go's keep it in the path they resolve.
  if (target.includes('#')) return undefined;
  const q = target.indexOf('?');
  const path = q === -1 ? target : target.slice(0, q);
  if (!path.startsWith('/') || !PLAIN_PATH.test(path) || path.includes('//')) return undefined;
  for (const m of path.matchAll(/%(.{0,2})/gs)) {
    if (!/^[0-9a-f]{2}$/i.test(m[1]!)) return undefined;
    const byte = parseInt(m[1]!, 16);
    if (byte < 0x21 || byte > 0x7e || ESCAPED_FORBIDDEN.test(String.fromCharCode(byte))) return undefined;
  }
  if (path.split('/').some((s) => s === '.' || s === '..')) return undefined;
  return path;
}

/** Whether an allow entry with `access` and `paths` covers a request of `need` at `path` (undefined: not normal). */
export function entryCovers(
  entry: { access: Access; paths?: readonly string[] },
  need: Access,
  path: string | undefined,
): boolean {
  if (need === 'write' && entry.access === 'read') return false;
  if (!entry.paths) return true;
  return path !== undefined && entry.paths.some((p) => pathCovered(p, path));
}

/**
 * The first bytes of a body as printable ASCII: `\n`, `\r`, `\t`, `\\`, `\"` and `\xNN` for every other byte. A
 * quote is escaped so the bytes, shown in quotes, cannot close them and pass for the approval's own words.
 */
export function escapeBytes(bytes: Buffer, max = 256): string {
  let out = '';
  for (const b of bytes.subarray(0, max)) {
    if (b === 0x5c) out += '\\\\';
    else if (b === 0x22) out += '\\"';
    else if (b === 0x0a) out += '\\n';
    else if (b === 0x0d) out += '\\r';
    else if (b === 0x09) out += '\\t';
    else if (b >= 0x20 && b < 0x7f) out += String.fromCharCode(b);
    else out += `\\x${b.toString(16).padStart(2, '0')}`;
  }
  return bytes.length > max ? `${out}…` : out;
}
