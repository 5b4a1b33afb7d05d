// After a failed connection to Temporal: does the address speak TLS, and is its certificate trusted? Turns a TLS
// mismatch into one line naming the setting, where gRPC only says "Failed to connect before the deadline". Worker-only.
import { isIP } from 'node:net';
import { connect } from 'node:tls';
import type { TemporalSettings } from './settings.js';

type Probe = 'closed' | 'plain' | 'tls' | 'unknown' | { untrusted: string };

const NOT_LISTENING = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * One TLS handshake with `address`, verifying the certificate against `ca` (else the system's roots) by hand. Both a
 * TLS server and a plaintext one answer a ClientHello at once; the timeout is only for a far end that never does, and
 * is long because a process starved of CPU can see its timer fire before the answer that came in time (a CI run).
 */
export function probeTls(address: string, ca?: Uint8Array, timeoutMs = 10_000): Promise<Probe> {
  const sep = address.lastIndexOf(':');
  const host = address.slice(0, sep);
  const port = Number(address.slice(sep + 1));
  return new Promise((resolve) => {
    const socket = connect({
      host,
      port,
      // SNI takes a host name only: an IP address there is refused by RFC 6066 (and warned about by Node).
      ...(isIP(host) ? {} : { servername: host }),
      ...(ca ? { ca: Buffer.from(ca) } : {}),
      ALPNProtocols: ['h2'],
      rejectUnauthorized: false,
    });
    const done = (result: Probe): void => {
      socket.destroy();
      resolve(result);
    };
    let tcpUp = false;
    socket.once('connect', () => (tcpUp = true));
    socket.setTimeout(timeoutMs, () => done('unknown'));
    socket.once('secureConnect', () =>
      done(socket.authorized ? 'tls' : { untrusted: String(socket.authorizationError ?? 'not trusted') }),
    );
    socket.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code && NOT_LISTENING.has(err.code)) done('closed');
      // Anything else after the TCP connection opened: the far end answered the handshake with something not TLS
      // (a plaintext HTTP/2 server sends its own frames or hangs up).
      else done(tcpUp ? 'plain' : 'unknown');
    });
    socket.once('close', () => done(tcpUp ? 'plain' : 'closed'));
  });
}

/** Which setting turned TLS on, for the message. */
function tlsSetting(env: NodeJS.ProcessEnv): string {
  if (env.TEMPORAL_TLS_CERT) return 'TEMPORAL_TLS_CERT';
  if (env.TEMPORAL_TLS_CA) return 'TEMPORAL_TLS_CA';
  if (env.TEMPORAL_API_KEY) return 'TEMPORAL_API_KEY';
  return `TEMPORAL_TLS=${env.TEMPORAL_TLS ?? 'true'}`;
}

/** One line when the failure was a TLS mismatch; undefined when it was something else (or nothing could be told). */
export async function explainTlsMismatch(
  settings: TemporalSettings,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string | undefined> {
  const tlsOn = Boolean(settings.tls);
  const ca = typeof settings.tls === 'object' ? settings.tls.serverRootCACertificate : undefined;
  const probe = await probeTls(settings.address, ca);
  const at = `Temporal at ${settings.address} (TEMPORAL_ADDRESS)`;
  if (tlsOn && probe === 'plain')
    return `${at} does not speak TLS, but ${tlsSetting(env)} turns TLS on: unset it, or set TEMPORAL_ADDRESS to the server's TLS endpoint`;
  if (tlsOn && typeof probe === 'object')
    return env.TEMPORAL_TLS_CA
      ? `${at} presents a TLS certificate that TEMPORAL_TLS_CA=${env.TEMPORAL_TLS_CA} does not vouch for (${probe.untrusted}): set TEMPORAL_TLS_CA to its root CA's file`
      : `${at} presents a TLS certificate the system does not trust (${probe.untrusted}): set TEMPORAL_TLS_CA to its root CA's file`;
  if (!tlsOn && (probe === 'tls' || typeof probe === 'object'))
    return `${at} speaks TLS, but TLS is off: set TEMPORAL_TLS=true (with TEMPORAL_TLS_CA for a private CA, TEMPORAL_TLS_CERT + TEMPORAL_TLS_KEY for mTLS)`;
  return undefined;
}

let quieted = false;

/**
 * grpc-js passes the address's host as the TLS server name, so TLS to an IP address makes Node print a deprecation
 * warning (DEP0123) on every command: a second line of noise that says nothing the user can act on.
 */
export function quietIpServerNameWarning(): void {
  if (quieted) return;
  quieted = true;
  const emit = process.emitWarning.bind(process);
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]): void => {
    const code = typeof rest[0] === 'object' && rest[0] ? (rest[0] as { code?: string }).code : rest[1];
    if (code === 'DEP0123') return;
    (emit as (w: string | Error, ...r: unknown[]) => void)(warning, ...rest);
  }) as typeof process.emitWarning;
}
