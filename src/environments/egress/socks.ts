// The SOCKS5 side of the egress proxy (RFC 1928): no authentication, CONNECT only, names resolved by the proxy
// (socks5h). Every byte is checked; anything else gets SOCKS's own refusal and the connection is closed. Worker-only.
import type { Socket } from 'node:net';
import { isIP } from 'node:net';
import { target, type Target } from './target.js';

/** SOCKS5 reply codes used here. */
export const SOCKS = {
  ok: 0x00,
  failure: 0x01,
  notAllowed: 0x02,
  hostUnreachable: 0x04,
  refused: 0x05,
  commandNotSupported: 0x07,
  addressNotSupported: 0x08,
} as const;

/** A handshake must be over within this long (the proxy's own limit; the approval wait comes after it). */
const HANDSHAKE_MS = 30_000;

/** Reads exactly the bytes asked for from a paused socket, or fails at its end, an error or the deadline. */
class ByteReader {
  private buffered: Buffer;
  private wanted: { n: number; resolve: (b: Buffer) => void; reject: (e: Error) => void } | undefined;
  private failure: Error | undefined;

  constructor(
    private readonly socket: Socket,
    first: Buffer,
  ) {
    this.buffered = first;
    socket.on('data', this.onData);
    socket.once('end', () => this.fail(new Error('the client closed the connection')));
    socket.once('error', (e) => this.fail(e));
    socket.resume();
  }

  private readonly onData = (c: Buffer): void => {
    this.buffered = Buffer.concat([this.buffered, c]);
    // A SOCKS handshake is at most ~270 bytes; more before it is answered is not SOCKS.
    if (this.buffered.length > 1024) this.fail(new Error('too much data before the handshake ended'));
    this.serve();
  };

  private fail(e: Error): void {
    this.failure ??= e;
    this.serve();
  }

  private serve(): void {
    const w = this.wanted;
    if (!w) return;
    if (this.buffered.length >= w.n) {
      this.wanted = undefined;
      const out = this.buffered.subarray(0, w.n);
      this.buffered = this.buffered.subarray(w.n);
      w.resolve(out);
    } else if (this.failure) {
      this.wanted = undefined;
      w.reject(this.failure);
    }
  }

  read(n: number): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      this.wanted = { n, resolve, reject };
      this.serve();
    });
  }

  /** Stops reading: the socket is paused, and bytes read past the handshake go back to it. */
  release(): void {
    this.socket.off('data', this.onData);
    this.socket.pause();
    if (this.buffered.length > 0) this.socket.unshift(this.buffered);
  }
}

/** The reply: REP, then an IPv4 bind address of zeros (clients ignore it for CONNECT). */
export function socksReply(code: number): Buffer {
  return Buffer.from([0x05, code, 0x00, 0x01, 0, 0, 0, 0, 0, 0]);
}

export type SocksRequest = { target: Target } | { refuse: number; why: string };

/**
 * The target of a SOCKS5 CONNECT whose first bytes are `first`; the socket is left paused with any bytes after the
 * request unread. A refusal carries the reply code to send before closing.
 */
export async function readSocksRequest(socket: Socket, first: Buffer): Promise<SocksRequest> {
  const reader = new ByteReader(socket, first);
  const timer = setTimeout(() => socket.destroy(new Error('SOCKS handshake timed out')), HANDSHAKE_MS);
  try {
    const [, nMethods] = await reader.read(2);
    const methods = await reader.read(nMethods!);
    if (!methods.includes(0x00)) {
      socket.write(Buffer.from([0x05, 0xff]));
      return { refuse: -1, why: 'the client offered no method without authentication' };
    }
    socket.write(Buffer.from([0x05, 0x00]));
    const [version, command, , type] = await reader.read(4);
    if (version !== 0x05) return { refuse: SOCKS.failure, why: `version ${String(version)} in the request` };
    let host: string;
    if (type === 0x01) host = [...(await reader.read(4))].join('.');
    else if (type === 0x04) {
      const b = await reader.read(16);
      host = Array.from({ length: 8 }, (_, i) => b.readUInt16BE(i * 2).toString(16)).join(':');
    } else if (type === 0x03) {
      const [len] = await reader.read(1);
      if (!len) return { refuse: SOCKS.addressNotSupported, why: 'an empty host name' };
      const raw = await reader.read(len);
      // A name with bytes outside printable ASCII (NUL, newlines) is refused, never passed on.
      if (raw.some((c) => c < 0x21 || c > 0x7e))
        return { refuse: SOCKS.addressNotSupported, why: 'a host name with control or non-ASCII bytes' };
      host = raw.toString('latin1');
      // A literal sent as a name is read as one (and checked as one).
      if (isIP(host) === 6) host = `[${host}]`;
    } else return { refuse: SOCKS.addressNotSupported, why: `address type ${String(type)}` };
    const port = (await reader.read(2)).readUInt16BE(0);
    if (command !== 0x01)
      return {
        refuse: SOCKS.commandNotSupported,
        why: command === 0x03 ? 'UDP ASSOCIATE (only CONNECT)' : `command ${String(command)} (only CONNECT)`,
      };
    const t = target(host, port);
    if ('error' in t) return { refuse: SOCKS.addressNotSupported, why: t.error };
    return { target: t };
  } catch (err) {
    return { refuse: -1, why: (err as Error).message };
  } finally {
    clearTimeout(timer);
    reader.release();
  }
}
