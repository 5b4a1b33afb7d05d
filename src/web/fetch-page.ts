// Fetches one web page for web_extract: redirects followed by hand (each hop re-checked), a deadline, a byte cap. Worker-only.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { checkLiteralHost, guardedLookup, parseFetchableUrl } from './address-policy.js';
import { isTetherError, TetherError } from '../common/errors.js';

interface FetchPageOptions {
  timeoutMs: number;
  maxBytes: number;
  userAgent: string;
  allowPrivate: boolean;
  /** Media types (lower case, without parameters) whose body is read; any other type is an error before the body. */
  acceptTypes: ReadonlySet<string>;
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

/** A failure the model should read (bad status, refused address, unsupported type, timeout). */
export async function fetchPage(rawUrl: string, opts: FetchPageOptions): Promise<FetchedPage> {
  const maxRedirects = opts.maxRedirects ?? 5;
  const deadline = AbortSignal.timeout(opts.timeoutMs);
  const signal = opts.signal ? AbortSignal.any([deadline, opts.signal]) : deadline;
  let url = parseFetchableUrl(rawUrl);
  try {
    for (let hop = 0; ; hop++) {
      checkLiteralHost(url, opts.allowPrivate);
      const res = await send(url, opts, signal);
      const location = res.headers.location;
      if (res.statusCode !== undefined && res.statusCode >= 300 && res.statusCode < 400 && location) {
        res.resume();
        if (hop >= maxRedirects)
          throw new TetherError(
            'Web.FetchFailed',
            `more than ${maxRedirects} redirects (the last went to ${location})`,
          );
        url = parseFetchableUrl(new URL(location, url).href);
        continue;
      }
      const status = res.statusCode ?? 0;
      if (status < 200 || status >= 300) {
        res.resume();
        throw new TetherError(
          'Web.FetchFailed',
          `HTTP ${status}${res.statusMessage ? ` ${res.statusMessage}` : ''} from ${url.href}`,
        );
      }
      const { type, charset } = parseContentType(res.headers['content-type']);
      if (!opts.acceptTypes.has(type)) {
        res.destroy();
        throw new TetherError(
          'Web.FetchFailed',
          `unsupported content type ${type || '(none given)'} at ${url.href}: only web pages and text can be extracted`,
        );
      }
      const { body, truncated } = await readCapped(res, decoded(res), opts.maxBytes);
      return { finalUrl: url.href, status, contentType: type, ...(charset ? { charset } : {}), body, truncated };
    }
  } catch (err) {
    if (isTetherError(err, 'Web.FetchFailed', 'Web.AddressRefused')) throw err;
    if (deadline.aborted)
      throw new TetherError('Web.FetchFailed', `timed out after ${opts.timeoutMs / 1000} s fetching ${url.href}`);
    if (opts.signal?.aborted) throw new TetherError('Web.FetchFailed', `cancelled while fetching ${url.href}`);
    const cause = err instanceof Error ? ((err as NodeJS.ErrnoException).code ?? err.message) : String(err);
    throw new TetherError('Web.FetchFailed', `could not fetch ${url.href}: ${cause}`);
  }
}

function send(url: URL, opts: FetchPageOptions, signal: AbortSignal): Promise<IncomingMessage> {
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'GET',
      signal,
      lookup: guardedLookup(opts.allowPrivate),
      headers: {
        'user-agent': opts.userAgent,
        accept: 'text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5',
        'accept-encoding': 'gzip, deflate, br',
      },
    });
    req.once('response', resolve);
    req.once('error', reject);
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
