// Fetches one web page for web_extract (or an image for vision_analyze): each hop's host decided by the run's egress
// gate before anything is resolved or sent, redirects followed by hand (each hop decided again), a deadline that
// does not run while a person is asked, a byte cap. Worker-only.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { isTetherError, TetherError } from '../common/errors.js';
import type { Target } from '../environments/egress/target.js';
import type { CallNetwork } from '../tool-egress/call-network.js';
import { shownUrl, tlsName, toolUrl } from '../tool-egress/tool-url.js';
import { NetworkClock } from './network-clock.js';

interface FetchPageOptions {
  /** The call's way out: every hop's host is decided and connected to through it. */
  net: CallNetwork;
  /** Network time one fetch may take (connects, redirects and body); time waiting for a person's approval is not counted. */
  timeoutMs: number;
  maxBytes: number;
  userAgent: string;
  /** Media types (lower case, without parameters) whose body is read; any other type is an error before the body. */
  acceptTypes: ReadonlySet<string>;
  /** The Accept header (default: web pages and text). */
  acceptHeader?: string;
  /** What an unsupported content type is told (default: only web pages and text can be extracted). */
  accept?: string;
  maxRedirects?: number;
  signal?: AbortSignal;
}

interface FetchedPage {
  finalUrl: string;
  status: number;
  /** Media type without parameters, lower case. */
  contentType: string;
  charset?: string;
  body: Buffer;
  /** The body was longer than maxBytes and was not read past it. */
  truncated: boolean;
}

function hopOf(raw: string): { url: URL; target: Target } {
  const hop = toolUrl(raw);
  if ('error' in hop) throw new TetherError('Web.AddressRefused', hop.error);
  return hop;
}

/** A failure the model should read (bad status, refused host, unsupported type, timeout). */
export async function fetchPage(rawUrl: string, opts: FetchPageOptions): Promise<FetchedPage> {
  const maxRedirects = opts.maxRedirects ?? 5;
  const clock = new NetworkClock(opts.timeoutMs);
  const signal = opts.signal ? AbortSignal.any([clock.signal, opts.signal]) : clock.signal;
  const first = hopOf(rawUrl);
  let { url, target } = first;
  try {
    for (let hop = 0; ; hop++) {
      const href = shownUrl(url.href);
      const shown =
        hop === 0
          ? `${opts.net.tool} ${href}`
          : `${opts.net.tool} ${href} (a redirect from ${shownUrl(first.url.href)})`;
      // A person deciding takes as long as it takes: the deadline is for the network.
      clock.pause();
      const d = await opts.net
        .decide(target, shown)
        .then((h) => (h.allow ? opts.net.decideGet(target, h, url, shown) : h))
        .finally(() => clock.resume());
      if (!d.allow) throw new TetherError('Web.AddressRefused', `refused to fetch ${href}: ${d.reason}`);
      const opened = await whileRunning(opts.net.connect(target, d), signal);
      if ('refused' in opened) throw new TetherError('Web.FetchFailed', `could not fetch ${href}: ${opened.refused}`);
      const res = await send(url, target, opened.socket, opts, signal);
      const location = res.headers.location;
      if (res.statusCode !== undefined && res.statusCode >= 300 && res.statusCode < 400 && location) {
        res.resume();
        if (hop >= maxRedirects)
          throw new TetherError(
            'Web.FetchFailed',
            `more than ${maxRedirects} redirects (the last went to ${shownUrl(location)})`,
          );
        ({ url, target } = hopOf(new URL(location, url).href));
        continue;
      }
      const status = res.statusCode ?? 0;
      if (status < 200 || status >= 300) {
        res.resume();
        throw new TetherError(
          'Web.FetchFailed',
          `HTTP ${status}${res.statusMessage ? ` ${res.statusMessage}` : ''} from ${href}`,
        );
      }
      const { type, charset } = parseContentType(res.headers['content-type']);
      if (!opts.acceptTypes.has(type)) {
        res.destroy();
        throw new TetherError(
          'Web.FetchFailed',
          `unsupported content type ${type || '(none given)'} at ${href}: ${opts.accept ?? 'only web pages and text can be extracted'}`,
        );
      }
      const { body, truncated } = await readCapped(res, decoded(res), opts.maxBytes);
      return { finalUrl: url.href, status, contentType: type, ...(charset ? { charset } : {}), body, truncated };
    }
  } catch (err) {
    if (isTetherError(err, 'Web.FetchFailed', 'Web.AddressRefused')) throw err;
    const href = shownUrl(url.href);
    if (clock.signal.aborted)
      throw new TetherError('Web.FetchFailed', `timed out after ${opts.timeoutMs / 1000} s fetching ${href}`);
    if (opts.signal?.aborted) throw new TetherError('Web.FetchFailed', `cancelled while fetching ${href}`);
    const cause = err instanceof Error ? ((err as NodeJS.ErrnoException).code ?? err.message) : String(err);
    throw new TetherError('Web.FetchFailed', `could not fetch ${href}: ${cause}`);
  } finally {
    clock.stop();
  }
}

/** `p`, unless `signal` aborts first (then a socket it still brings is closed). */
function whileRunning<T extends object>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    void p.then((r) => 'socket' in r && (r.socket as Socket).destroy());
    return Promise.reject(signal.reason as Error);
  }
  return new Promise((resolve, reject) => {
    const abort = (): void => {
      void p.then((r) => 'socket' in r && (r.socket as Socket).destroy());
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', abort, { once: true });
    p.then(
      (r) => {
        signal.removeEventListener('abort', abort);
        resolve(r);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', abort);
        reject(err as Error);
      },
    );
  });
}

/** One GET on the connection the gate opened: TLS on it for https (certificate checked for the URL's host). */
function send(
  url: URL,
  t: Target,
  socket: Socket,
  opts: FetchPageOptions,
  signal: AbortSignal,
): Promise<IncomingMessage> {
  const https = url.protocol === 'https:';
  const name = tlsName(t);
  const connection = https
    ? tlsConnect({ socket, host: t.host, ...(name ? { servername: name } : {}), ALPNProtocols: ['http/1.1'] })
    : socket;
  return new Promise((resolve, reject) => {
    const req = (https ? httpsRequest : httpRequest)(url, {
      method: 'GET',
      signal,
      // No agent: this request's connection is the one the gate opened, used once.
      createConnection: () => connection,
      headers: {
        'user-agent': opts.userAgent,
        accept: opts.acceptHeader ?? 'text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5',
        'accept-encoding': 'gzip, deflate, br',
        connection: 'close',
      },
    });
    req.once('response', resolve);
    req.once('error', (err) => {
      connection.destroy();
      reject(err);
    });
    req.end();
  });
}

export function parseContentType(header: string | undefined): { type: string; charset?: string } {
  if (!header) return { type: '' };
  const [type = '', ...params] = header.split(';').map((p) => p.trim());
  const charset = params
    .find((p) => p.toLowerCase().startsWith('charset='))
    ?.slice(8)
    .replace(/^"|"$/g, '');
  return { type: type.toLowerCase(), ...(charset ? { charset } : {}) };
}

function decoded(res: IncomingMessage): Readable {
  const encoding = String(res.headers['content-encoding'] ?? '').toLowerCase();
  const decoder =
    encoding === 'gzip'
      ? createGunzip()
      : encoding === 'deflate'
        ? createInflate()
        : encoding === 'br'
          ? createBrotliDecompress()
          : undefined;
  if (!decoder) return res;
  res.once('error', (err) => decoder.destroy(err));
  return res.pipe(decoder);
}

/** Reads at most maxBytes (after decompression), then stops the transfer. */
async function readCapped(
  res: IncomingMessage,
  stream: Readable,
  maxBytes: number,
): Promise<{ body: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buf = chunk as Buffer;
    if (size + buf.length > maxBytes) {
      chunks.push(buf.subarray(0, maxBytes - size));
      stream.destroy();
      res.destroy();
      return { body: Buffer.concat(chunks), truncated: true };
    }
    chunks.push(buf);
    size += buf.length;
  }
  return { body: Buffer.concat(chunks), truncated: false };
}
