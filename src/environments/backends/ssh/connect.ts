// Opens one ssh2 connection: authentication, host key checking against known_hosts, errors that name the target. Worker-only.
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { Client, type ConnectConfig, type ServerHostKeyAlgorithm } from 'ssh2';
import { EnvironmentError } from '../../types.js';
import {
  checkHostKey,
  knownHostsLine,
  parseKnownHosts,
  preferredHostKeyAlgorithms,
  type KnownHostEntry,
} from './known-hosts.js';
import { targetName, type SshTarget } from './settings.js';

/** ssh2's default host key algorithms (ed25519 first; Node 20 supports it). */
const HOST_KEY_ALGORITHMS: ServerHostKeyAlgorithm[] = [
  'ssh-ed25519',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'rsa-sha2-512',
  'rsa-sha2-256',
  'ssh-rsa',
];

/** One logged-in connection. `lost` is set (before its channels are closed) once the connection is gone. */
export interface SshLink {
  client: Client;
  lost: EnvironmentError | undefined;
  /** Session channels open on it now. */
  channels: number;
  /** The server refused a session since the last one closed (sshd's MaxSessions reached). */
  full: boolean;
}

function readKnownHosts(path: string): KnownHostEntry[] {
  try {
    return parseKnownHosts(readFileSync(path, 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new EnvironmentError(
      'Environment.Config',
      'ssh',
      `cannot read known_hosts file ${path}: ${(err as Error).message}`,
    );
  }
}

/** Returns the refusal, or undefined when the key may be used (adding it to the file under accept-new). */
function judgeHostKey(t: SshTarget, entries: KnownHostEntry[], key: Buffer): EnvironmentError | undefined {
  if (t.hostKeyCheck === 'off') return undefined;
  const verdict = checkHostKey(entries, t.host, t.port, key);
  const config = (msg: string) => new EnvironmentError('Environment.Config', 'ssh', msg);
  switch (verdict.kind) {
    case 'known':
      return undefined;
    case 'mismatch':
      return config(
        `HOST KEY MISMATCH for ${t.host}:${t.port}: the server's key differs from the one in ${t.knownHosts} ` +
          `line ${verdict.line}. Someone may be intercepting the connection (man-in-the-middle), or the host key ` +
          `was changed. Refusing to connect; if the change is expected, remove that line and connect again.`,
      );
    case 'revoked':
      return config(
        `the host key of ${t.host}:${t.port} is marked @revoked in ${t.knownHosts} line ${verdict.line}; refusing to connect`,
      );
    case 'unknown':
      if (t.hostKeyCheck === 'accept-new') {
        try {
          mkdirSync(dirname(t.knownHosts), { recursive: true, mode: 0o700 });
          appendFileSync(t.knownHosts, knownHostsLine(t.host, t.port, key), { mode: 0o600 });
        } catch (err) {
          return config(`cannot add the host key of ${t.host}:${t.port} to ${t.knownHosts}: ${(err as Error).message}`);
        }
        return undefined;
      }
      return config(
        `the host key of ${t.host}:${t.port} is not in ${t.knownHosts} (terminal.ssh.host_key_check is strict)` +
          (verdict.knownTypes.length > 0 ? `; keys of other types are known (${verdict.knownTypes.join(', ')})` : '') +
          `. Add it after checking its fingerprint: ssh-keyscan -p ${t.port} ${t.host} >> ${t.knownHosts}` +
          ` (or set terminal.ssh.host_key_check: accept-new)`,
      );
  }
}

function triedMethods(t: SshTarget): string {
  const methods = [];
  if (t.keyPath !== undefined) methods.push(`publickey with ${t.keyPath}`);
  if (t.agent !== undefined) methods.push(`ssh-agent at ${t.agent}`);
  return methods.length > 0 ? methods.join(', ') : 'none (no key, no agent)';
}

/** Why a connection attempt failed, as an EnvironmentError of the right kind. */
function connectError(t: SshTarget, err: Error & { level?: string }): EnvironmentError {
  const name = targetName(t);
  if (err.level === 'client-authentication') {
    return new EnvironmentError(
      'Environment.Config',
      'ssh',
      `authentication as ${name} failed (tried: ${triedMethods(t)}): ${err.message}`,
    );
  }
  if (err.level === 'client-timeout') {
    return new EnvironmentError(
      'Environment.Unreachable',
      'ssh',
      `cannot connect to ${name}: no SSH handshake within ${t.connectTimeoutMs / 1000} s`,
    );
  }
  return new EnvironmentError('Environment.Unreachable', 'ssh', `cannot connect to ${name}: ${err.message}`);
}

function readKey(t: SshTarget): Buffer | undefined {
  if (t.keyPath === undefined) return undefined;
  try {
    return readFileSync(t.keyPath);
  } catch (err) {
    throw new EnvironmentError(
      'Environment.Config',
      'ssh',
      `cannot read the private key ${t.keyPath} (terminal.ssh.key_path): ${(err as Error).message}`,
    );
  }
}

/** One attempt. Rejects with Environment.Config (keys, host key, login) or Environment.Unreachable (network). */
export function connectOnce(t: SshTarget): Promise<SshLink> {
  return new Promise((resolve, reject) => {
    let entries: KnownHostEntry[];
    let privateKey: Buffer | undefined;
    try {
      entries = t.hostKeyCheck === 'off' ? [] : readKnownHosts(t.knownHosts);
      privateKey = readKey(t);
    } catch (err) {
      reject(err as Error);
      return;
    }
    const client = new Client();
    const link: SshLink = { client, lost: undefined, channels: 0, full: false };
    let ready = false;
    let refusal: EnvironmentError | undefined;
    let lastError: Error | undefined;
    const knownTypes = entries.filter((e) => !e.revoked).map((e) => e.keyType);
    const config: ConnectConfig = {
      host: t.host,
      port: t.port,
      username: t.user,
      privateKey,
      passphrase: t.passphrase,
      agent: t.agent,
      keepaliveInterval: t.keepaliveMs,
      keepaliveCountMax: t.keepaliveCountMax,
      readyTimeout: t.connectTimeoutMs,
      algorithms: { serverHostKey: preferredHostKeyAlgorithms(HOST_KEY_ALGORITHMS, knownTypes) },
      hostVerifier: (key: Buffer) => {
        refusal = judgeHostKey(t, entries, key);
        return refusal === undefined;
      },
    };
    const markLost = (why: string) => {
      link.lost ??= new EnvironmentError(
        'Environment.Unreachable',
        'ssh',
        `connection to ${targetName(t)} lost: ${why}`,
      );
    };
    client.on('ready', () => {
      ready = true;
      // A task's shell sends each command as a small write and waits for its answer: Nagle would hold it back.
      client.setNoDelay(true);
      resolve(link);
    });
    client.on('error', (err: Error & { level?: string }) => {
      lastError = err;
      if (ready) markLost(err.message);
      else reject(refusal ?? connectError(t, err));
    });
    client.on('end', () => {
      if (ready) markLost(lastError?.message ?? 'the server closed the connection');
    });
    client.on('close', () => {
      if (ready) markLost(lastError?.message ?? 'the server closed the connection');
      else reject(refusal ?? connectError(t, lastError ?? new Error('the server closed the connection before login')));
    });
    try {
      client.connect(config);
    } catch (err) {
      // ssh2 throws here for a key it cannot parse or decrypt (a missing or wrong passphrase).
      reject(
        new EnvironmentError(
          'Environment.Config',
          'ssh',
          `cannot use the private key ${t.keyPath} for ${targetName(t)}: ${(err as Error).message}`,
        ),
      );
    }
  });
}
