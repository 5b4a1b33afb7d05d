// Parses an OpenSSH known_hosts file and judges a server's host key against it (plain, wildcard and hashed entries). Worker-only.
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface KnownHostEntry {
  /** `@revoked` lines refuse the key for the hosts they name; `@cert-authority` lines are skipped (no certificates). */
  revoked: boolean;
  /** Comma-separated host patterns, or one `|1|salt|hash` hashed name. */
  hosts: string;
  keyType: string;
  /** The key blob (SSH wire format), as the server sends it. */
  key: Buffer;
  /** 1-based line number, for messages. */
  line: number;
}

type HostKeyVerdict =
  | { kind: 'known' }
  | { kind: 'unknown'; knownTypes: string[] }
  | { kind: 'mismatch'; line: number }
  | { kind: 'revoked'; line: number };

/** The name OpenSSH looks a host up by: `host` on port 22, `[host]:port` elsewhere. */
export function knownHostName(host: string, port: number): string {
  return port === 22 ? host : `[${host}]:${port}`;
}

export function parseKnownHosts(text: string): KnownHostEntry[] {
  const entries: KnownHostEntry[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const fields = line.split(/\s+/);
    let revoked = false;
    if (fields[0]?.startsWith('@')) {
      const marker = fields.shift();
      if (marker === '@cert-authority') return;
      if (marker !== '@revoked') return;
      revoked = true;
    }
    const [hosts, keyType, keyBase64] = fields;
    if (!hosts || !keyType || !keyBase64) return;
    const key = Buffer.from(keyBase64, 'base64');
    if (key.length === 0) return;
    entries.push({ revoked, hosts, keyType, key, line: index + 1 });
  });
  return entries;
}

function wildcardToRegExp(pattern: string): RegExp {
  const escaped = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${escaped}$`, 'i');
}

function hashedMatches(field: string, name: string): boolean {
  const parts = field.split('|');
  // `|1|salt|hash` splits into ['', '1', salt, hash].
  if (parts.length !== 4 || parts[1] !== '1' || !parts[2] || !parts[3]) return false;
  const salt = Buffer.from(parts[2], 'base64');
  const expected = Buffer.from(parts[3], 'base64');
  const actual = createHmac('sha1', salt).update(name).digest();
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** Whether an entry's host field names `name` (a `!pattern` that matches excludes the host whatever else matches). */
export function hostFieldMatches(field: string, name: string): boolean {
  if (field.startsWith('|')) return hashedMatches(field, name);
  let matched = false;
  for (const pattern of field.split(',')) {
    if (pattern.startsWith('!')) {
      if (wildcardToRegExp(pattern.slice(1)).test(name)) return false;
    } else if (wildcardToRegExp(pattern).test(name)) {
      matched = true;
    }
  }
  return matched;
}

/** The key type named inside a key blob (its first SSH string). */
export function keyBlobType(key: Buffer): string {
  if (key.length < 4) return '';
  const len = key.readUInt32BE(0);
  return key.subarray(4, 4 + len).toString('latin1');
}

/**
 * Judges the key a server offered. A key of a type with no entry is `unknown` (OpenSSH treats it as a new
 * host too); a different key of a type that has an entry is a `mismatch`.
 */
export function checkHostKey(entries: KnownHostEntry[], host: string, port: number, key: Buffer): HostKeyVerdict {
  const name = knownHostName(host, port);
  const mine = entries.filter((e) => hostFieldMatches(e.hosts, name));
  const revoked = mine.find((e) => e.revoked && e.key.equals(key));
  if (revoked) return { kind: 'revoked', line: revoked.line };
  const valid = mine.filter((e) => !e.revoked);
  if (valid.some((e) => e.key.equals(key))) return { kind: 'known' };
  const type = keyBlobType(key);
  const sameType = valid.find((e) => e.keyType === type);
  if (sameType) return { kind: 'mismatch', line: sameType.line };
  return { kind: 'unknown', knownTypes: [...new Set(valid.map((e) => e.keyType))] };
}

/** The line accept-new appends for a host. */
export function knownHostsLine(host: string, port: number, key: Buffer): string {
  return `${knownHostName(host, port)} ${keyBlobType(key)} ${key.toString('base64')}\n`;
}

/** Host key algorithms a key type can be verified with, in ssh2's names. */
const ALGORITHMS_FOR_TYPE: Record<string, string[]> = {
  'ssh-rsa': ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'],
};

/**
 * Orders ssh2's host key algorithms so that types already in known_hosts come first: a server with several
 * host keys then offers the one we can check, as OpenSSH does.
 */
export function preferredHostKeyAlgorithms<A extends string>(
  defaults: readonly A[],
  knownTypes: readonly string[],
): A[] {
  const first = knownTypes
    .flatMap((t) => ALGORITHMS_FOR_TYPE[t] ?? [t])
    .filter((a): a is A => (defaults as readonly string[]).includes(a));
  return [...new Set([...first, ...defaults])];
}
