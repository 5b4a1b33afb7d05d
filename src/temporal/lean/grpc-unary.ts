// Unary gRPC calls to Temporal's WorkflowService over node:http2, for the lean read path: the framing, deadline,
// TLS and API key of a call, nothing else (no retries: a failed read falls back to the full client). Worker-only.
import { connect, constants, type ClientHttp2Session, type IncomingHttpHeaders } from 'node:http2';
import type { TLSConfig } from '@temporalio/client';
import type protobuf from 'protobufjs/light.js';
import type { TemporalSettings } from '../settings.js';

const SERVICE = '/temporal.api.workflowservice.v1.WorkflowService/';

/** A call that ended with a gRPC status other than OK, or never got one (code undefined). */
export class GrpcCallError extends Error {
  override readonly name = 'GrpcCallError';
  constructor(
    message: string,
    readonly code?: number,
  ) {
    super(message);
  }
}

/** gRPC's status codes this path tells apart. */
export const DEADLINE_EXCEEDED = 4;
export const NOT_FOUND = 5;

function tlsOptions(tls: TLSConfig | boolean | undefined): Record<string, unknown> | undefined {
  if (!tls) return undefined;
  if (tls === true) return {};
  return {
    ...(tls.serverRootCACertificate ? { ca: tls.serverRootCACertificate } : {}),
    ...(tls.clientCertPair ? { cert: tls.clientCertPair.crt, key: tls.clientCertPair.key } : {}),
    ...(tls.serverNameOverride ? { servername: tls.serverNameOverride } : {}),
  };
}

function frame(body: Uint8Array): Buffer {
  const out = Buffer.alloc(5 + body.length);
  out.writeUInt32BE(body.length, 1); // byte 0 stays 0: not compressed
  out.set(body, 5);
  return out;
}

function statusOf(headers: IncomingHttpHeaders): { code?: number; message: string } {
  const raw = headers['grpc-status'];
  const message = headers['grpc-message'];
  return {
    code: raw === undefined ? undefined : Number(raw),
    message: typeof message === 'string' ? decodeURIComponent(message) : '',
  };
}

/** A server that has not accepted the connection by then is left to the full client (which says why). */
const CONNECT_MS = 3_000;

export class GrpcSession {
  private constructor(
    private readonly session: ClientHttp2Session,
    private readonly ready: Promise<void>,
    private readonly apiKey?: string,
  ) {}

  /** Starts connecting; calls wait for the connection, and fail with it. */
  static open(settings: Pick<TemporalSettings, 'address' | 'tls' | 'apiKey'>): GrpcSession {
    const tls = tlsOptions(settings.tls);
    const session = connect(`${tls ? 'https' : 'http'}://${settings.address}`, tls ?? {});
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new GrpcCallError(`no connection to ${settings.address} within ${CONNECT_MS} ms`)),
        CONNECT_MS,
      );
      timer.unref();
      session.once('connect', () => {
        clearTimeout(timer);
        resolve();
      });
      session.once('error', (err) => {
        clearTimeout(timer);
        reject(new GrpcCallError(`connecting to ${settings.address}: ${err.message}`));
      });
    });
    // Met by the first call; this keeps an unused session's failure from being an unhandled rejection.
    ready.catch(() => undefined);
    session.on('error', () => undefined);
    return new GrpcSession(session, ready, settings.apiKey);
  }

  async call<T>(
    method: string,
    request: object,
    types: { req: protobuf.Type; res: protobuf.Type },
    timeoutMs: number,
  ): Promise<T> {
    const body = frame(types.req.encode(types.req.fromObject(request)).finish());
    await this.ready;
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const fail = (err: GrpcCallError): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        stream.close(constants.NGHTTP2_CANCEL);
        reject(err);
      };
      const stream = this.session.request({
        ':method': 'POST',
        ':path': SERVICE + method,
        'content-type': 'application/grpc',
        te: 'trailers',
        'grpc-timeout': `${Math.max(1, Math.ceil(timeoutMs))}m`,
        ...(this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {}),
      });
      const timer = setTimeout(
        () => fail(new GrpcCallError(`${method}: deadline of ${timeoutMs} ms exceeded`, DEADLINE_EXCEEDED)),
        timeoutMs,
      );
      const chunks: Buffer[] = [];
      let status: { code?: number; message: string } | undefined;
      stream.on('response', (headers) => {
        // A "trailers-only" answer (an error before any message) carries its status in the headers.
        if (headers['grpc-status'] !== undefined) status = statusOf(headers);
        else if (headers[':status'] !== 200)
          fail(new GrpcCallError(`${method}: HTTP ${String(headers[':status'])} (not a gRPC server?)`));
      });
      stream.on('trailers', (trailers) => {
        status = statusOf(trailers);
      });
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', (err) => fail(new GrpcCallError(`${method}: ${err.message}`)));
      stream.on('end', () => {
        if (!status || status.code === undefined)
          return fail(new GrpcCallError(`${method}: the answer had no gRPC status`));
        if (status.code !== 0) return fail(new GrpcCallError(`${method}: ${status.message}`, status.code));
        const data = Buffer.concat(chunks);
        if (data.length < 5 || data[0] !== 0 || data.readUInt32BE(1) !== data.length - 5)
          return fail(new GrpcCallError(`${method}: the answer is not one uncompressed gRPC message`));
        settled = true;
        clearTimeout(timer);
        try {
          resolve(types.res.toObject(types.res.decode(data.subarray(5)), { longs: Number }) as T);
        } catch (err) {
          reject(new GrpcCallError(`${method}: ${(err as Error).message}`));
        }
      });
      stream.end(body);
    });
  }

  close(): void {
    if (!this.session.closed) this.session.close();
    // A session still connecting (or refused) would otherwise keep the process alive until it gives up.
    if (!this.session.destroyed) this.session.unref();
  }
}
