// The remote codec endpoint of `tether codec-server`: Temporal's codec server protocol (POST /encode and /decode,
// also under a namespace segment, with payloads as proto3 JSON), for the Temporal UI and `temporal --codec-endpoint`.
// Only the listed browser origins may call it, and with a token only its bearers. Worker-only.
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { KEY_FILE_SETTING, type Keyring } from '../payloads/keyring.js';
import { openPayload, sealPayload, type Payload } from '../payloads/payload-cipher.js';
import { send } from './gateway-http.js';
import { readBody } from '../decisions/read-body.js';

/** A page of history the UI decodes at once can hold many payloads: room for them, bounded. */
export const MAX_CODEC_BODY = 16 * 1024 * 1024;

export interface CodecServerOptions {
  keyring: Keyring | undefined;
  /** Browser origins allowed to call (the Temporal UI's), exactly as the browser sends them. */
  origins: readonly string[];
  /** When set, every request must carry `Authorization: Bearer <token>`. */
  token?: string;
  /** When set, a request naming another namespace (path segment or X-Namespace) is refused. */
  namespace?: string;
}

interface JsonPayload {
  metadata?: Record<string, string> | null;
  data?: string | null;
}

const ALLOW_HEADERS = 'content-type, x-namespace, authorization';
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function fromJson(p: unknown, i: number): Payload {
  const bad = (what: string): Error => new Error(`payloads[${i}]: ${what}`);
  if (typeof p !== 'object' || p === null) throw bad('not an object');
  const { metadata, data } = p as JsonPayload;
  const bytes = (v: unknown, where: string): Buffer => {
    if (typeof v !== 'string' || !BASE64.test(v)) throw bad(`${where} is not base64`);
    return Buffer.from(v, 'base64');
  };
  if (metadata !== undefined && metadata !== null && (typeof metadata !== 'object' || Array.isArray(metadata)))
    throw bad('metadata is not an object');
  return {
    metadata: Object.fromEntries(Object.entries(metadata ?? {}).map(([k, v]) => [k, bytes(v, `metadata.${k}`)])),
    data: data === undefined || data === null ? new Uint8Array() : bytes(data, 'data'),
  };
}

function toJson(p: Payload): JsonPayload {
  return {
    metadata: Object.fromEntries(
      Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
    ),
    data: Buffer.from(p.data ?? new Uint8Array()).toString('base64'),
  };
}

const sameSecret = (given: string, expected: string): boolean => {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

const header = (req: IncomingMessage, name: string): string | undefined => {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

/** The request handler; `tether codec-server` listens with it. */
export function codecHandler(opts: CodecServerOptions) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const origin = header(req, 'origin');
    const allowed = origin !== undefined && opts.origins.includes(origin);
    if (allowed) {
      res.setHeader('access-control-allow-origin', origin);
      res.setHeader('access-control-allow-credentials', 'true');
      res.setHeader('vary', 'Origin');
    }
    // A page of an origin not listed gets nothing, preflight or not (the browser would hide the answer anyway).
    if (origin !== undefined && !allowed)
      return send(res, 403, {
        error: `origin ${origin} is not allowed: start tether codec-server with --origin ${origin}`,
      });
    let path = new URL(req.url ?? '/', 'http://codec').pathname.split('/').filter(Boolean);
    // With a token, a browser that cannot send a header (the Temporal UI without sign-in) names it as the endpoint's
    // first path segment: http://127.0.0.1:8089/<token>.
    const bearer = /^Bearer\s+(.+)$/i.exec(header(req, 'authorization') ?? '')?.[1]?.trim();
    let authorised = opts.token === undefined || (bearer !== undefined && sameSecret(bearer, opts.token));
    if (!authorised && bearer === undefined && path[0] !== undefined && sameSecret(path[0], opts.token!)) {
      authorised = true;
      path = path.slice(1);
    }
    const action = path.at(-1);
    if (path.length > 2 || (action !== 'encode' && action !== 'decode'))
      return send(res, 404, {
        error: `no route ${req.method} ${authorised ? req.url : ''} (POST /encode, POST /decode)`,
      });
    if (req.method === 'OPTIONS') {
      res.writeHead(204, {
        'access-control-allow-methods': 'POST, OPTIONS',
        'access-control-allow-headers': ALLOW_HEADERS,
        'access-control-max-age': '600',
      });
      return void res.end();
    }
    if (req.method !== 'POST') {
      res.setHeader('allow', 'POST, OPTIONS');
      return send(res, 405, { error: `${req.method} is not allowed: POST /${action}` });
    }
    if (!authorised) {
      res.setHeader('www-authenticate', 'Bearer realm="tether codec-server"');
      return send(res, 401, {
        error: 'a token is required: Authorization: Bearer <token>, or the token as the first path segment',
      });
    }
    const namespace = path.length === 2 ? path[0] : header(req, 'x-namespace');
    if (opts.namespace !== undefined && namespace !== undefined && namespace !== opts.namespace)
      return send(res, 403, { error: `namespace ${namespace} is not served here (only ${opts.namespace})` });
    const body = await readBody(req, MAX_CODEC_BODY);
    if (!body.ok) return send(res, 413, { error: `body larger than ${MAX_CODEC_BODY} bytes` }, true);
    let payloads: Payload[];
    try {
      const parsed = JSON.parse(body.text) as { payloads?: unknown };
      if (!Array.isArray(parsed?.payloads)) throw new Error('the body must be {"payloads": [...]}');
      payloads = parsed.payloads.map(fromJson);
    } catch (err) {
      return send(res, 400, { error: (err as Error).message });
    }
    try {
      let out: Payload[];
      if (action === 'decode') out = payloads.map((p) => openPayload(p, opts.keyring));
      else {
        const keyring = opts.keyring;
        if (!keyring) return send(res, 400, { error: `encryption is off here: ${KEY_FILE_SETTING} is not set` });
        out = payloads.map((p) => sealPayload(p, keyring.current));
      }
      return send(res, 200, { payloads: out.map(toJson) });
    } catch (err) {
      return send(res, 400, { error: (err as Error).message });
    }
  };
}
