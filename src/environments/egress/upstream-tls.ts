// The egress proxy's own TLS connections upstream: verified against this machine's CA store and
// egress.upstream_ca_file (trust.ts), naming the host the connection was decided for, HTTP/1.1, and resuming the
// session of an earlier connection to that host. Worker-only.
import type { Duplex } from 'node:stream';
import { connect as tlsConnect, type SecureContext, type TLSSocket } from 'node:tls';
import { targetText, type Target } from './target.js';

/**
 * TLS sessions of the proxy's upstream connections, by trust (a session is only resumed under the trust that
 * verified it) and host:port: a new connection resumes instead of a full handshake.
 */
const SESSIONS = 512;
const sessionsByTrust = new WeakMap<SecureContext, Map<string, Buffer>>();

/** The proxy's own TLS connection upstream on `socket`, verified against the machine's store and upstream_ca_file. */
export function secureUpstream(socket: Duplex, t: Target, context: SecureContext): Promise<TLSSocket> {
  const key = targetText(t);
  let sessions = sessionsByTrust.get(context);
  if (!sessions) sessionsByTrust.set(context, (sessions = new Map()));
  const kept = sessions;
  return new Promise((resolve, reject) => {
    const session = kept.get(key);
    const s = tlsConnect({
      socket,
      secureContext: context,
      ...(t.ip === 0 ? { servername: t.host } : {}),
      host: t.host,
      ALPNProtocols: ['http/1.1'],
      ...(session ? { session } : {}),
    });
    s.on('session', (b: Buffer) => {
      kept.delete(key);
      kept.set(key, b);
      if (kept.size > SESSIONS) kept.delete(kept.keys().next().value!);
    });
    s.once('secureConnect', () => {
      s.removeAllListeners('error');
      s.on('error', () => s.destroy());
      resolve(s);
    });
    s.once('error', (err: NodeJS.ErrnoException) => {
      socket.destroy();
      const certificate = /CERT|SELF_SIGNED|ISSUER|HOSTNAME|IP_ADDRESS/i.test(err.code ?? '');
      reject(
        new Error(
          certificate
            ? `${targetText(t)}'s certificate could not be verified (${err.code ?? err.message}); the proxy trusts this machine's CA store and terminal.local.sandbox.egress.upstream_ca_file`
            : `${targetText(t)}: TLS failed (${err.code ?? err.message})`,
        ),
      );
    });
  });
}
