// Unit tests for known_hosts parsing and host key matching, with entries written by OpenSSH's own ssh-keygen. Worker-only.
import { describe, expect, it } from 'vitest';
import {
  checkHostKey,
  hostFieldMatches,
  keyBlobType,
  knownHostName,
  knownHostsLine,
  parseKnownHosts,
  preferredHostKeyAlgorithms,
} from './known-hosts.js';

// Two throw-away ed25519 keys; the hashed line was produced by `ssh-keygen -H` for [127.0.0.1]:2222 and KEY_A.
const KEY_A_B64 = 'AAAAC3NzaC1lZDI1NTE5AAAAINl9tIeFFZPhebZD9zT2T1N73sRDORinrKcHcuPyjECG';
const KEY_B_B64 = 'AAAAC3NzaC1lZDI1NTE5AAAAIFfbINaIsdfKiYRCSQZ+K6oQmy0WlnkjnJ8h9BkpUOxw';
const HASHED = `|1|XjzR6Vm0wl70BAfGKcb6DsGcCR8=|EpUKemifaa+xwdhL8DPZRD76c6s= ssh-ed25519 ${KEY_A_B64}`;
const KEY_A = Buffer.from(KEY_A_B64, 'base64');
const KEY_B = Buffer.from(KEY_B_B64, 'base64');

/** A fake RSA blob: only the type string matters to the matcher. */
function rsaBlob(): Buffer {
  const type = Buffer.from('ssh-rsa');
  const len = Buffer.alloc(4);
  len.writeUInt32BE(type.length);
  return Buffer.concat([len, type, Buffer.from([1, 2, 3])]);
}

describe('known_hosts names and patterns', () => {
  it('names port 22 plainly and other ports in brackets', () => {
    expect(knownHostName('example.org', 22)).toBe('example.org');
    expect(knownHostName('127.0.0.1', 2222)).toBe('[127.0.0.1]:2222');
  });

  it('matches comma lists, wildcards and negations', () => {
    expect(hostFieldMatches('a.example,b.example', 'b.example')).toBe(true);
    expect(hostFieldMatches('a.example,b.example', 'c.example')).toBe(false);
    expect(hostFieldMatches('*.example', 'x.EXAMPLE')).toBe(true);
    expect(hostFieldMatches('*.example,!bad.example', 'bad.example')).toBe(false);
    expect(hostFieldMatches('host?', 'host1')).toBe(true);
    expect(hostFieldMatches('a.b', 'aXb')).toBe(false);
    expect(hostFieldMatches('[127.0.0.1]:2222', '[127.0.0.1]:2222')).toBe(true);
    expect(hostFieldMatches('[127.0.0.1]:2222', '[127.0.0.1]:2223')).toBe(false);
  });

  it('matches hashed names written by ssh-keygen -H', () => {
    const field = HASHED.split(' ')[0] ?? '';
    expect(hostFieldMatches(field, '[127.0.0.1]:2222')).toBe(true);
    expect(hostFieldMatches(field, '[127.0.0.1]:2223')).toBe(false);
    expect(hostFieldMatches('|1|bad', '[127.0.0.1]:2222')).toBe(false);
  });
});

describe('parseKnownHosts', () => {
  it('skips comments, blanks, cert authorities and broken lines; keeps revoked markers and line numbers', () => {
    const entries = parseKnownHosts(
      [
        '# comment',
        '',
        `@cert-authority *.example ssh-ed25519 ${KEY_B_B64}`,
        'broken-line-without-key',
        `@revoked bad.example ssh-ed25519 ${KEY_B_B64}`,
        `good.example ssh-ed25519 ${KEY_A_B64} comment here`,
      ].join('\n'),
    );
    expect(entries.map((e) => [e.hosts, e.revoked, e.line])).toEqual([
      ['bad.example', true, 5],
      ['good.example', false, 6],
    ]);
    expect(entries[1]?.key.equals(KEY_A)).toBe(true);
  });
});

describe('checkHostKey', () => {
  const entries = parseKnownHosts(
    `${HASHED}\nother.example ssh-ed25519 ${KEY_B_B64}\n@revoked revoked.example ssh-ed25519 ${KEY_A_B64}\n`,
  );

  it('knows the hashed host with its key', () => {
    expect(checkHostKey(entries, '127.0.0.1', 2222, KEY_A)).toEqual({ kind: 'known' });
  });

  it('reports another key of the same type as a mismatch with its line', () => {
    expect(checkHostKey(entries, '127.0.0.1', 2222, KEY_B)).toEqual({ kind: 'mismatch', line: 1 });
  });

  it('treats a key of a type without an entry as unknown, listing the known types', () => {
    expect(checkHostKey(entries, '127.0.0.1', 2222, rsaBlob())).toEqual({
      kind: 'unknown',
      knownTypes: ['ssh-ed25519'],
    });
  });

  it('treats a host without entries as unknown', () => {
    expect(checkHostKey(entries, '127.0.0.1', 2223, KEY_A)).toEqual({ kind: 'unknown', knownTypes: [] });
  });

  it('refuses a revoked key', () => {
    expect(checkHostKey(entries, 'revoked.example', 22, KEY_A)).toEqual({ kind: 'revoked', line: 3 });
  });
});

describe('helpers', () => {
  it('reads the key type from a blob and writes a line that parses back to a known key', () => {
    expect(keyBlobType(KEY_A)).toBe('ssh-ed25519');
    expect(keyBlobType(Buffer.alloc(2))).toBe('');
    const line = knownHostsLine('10.0.0.1', 2200, KEY_A);
    expect(line).toBe(`[10.0.0.1]:2200 ssh-ed25519 ${KEY_A_B64}\n`);
    expect(checkHostKey(parseKnownHosts(line), '10.0.0.1', 2200, KEY_A)).toEqual({ kind: 'known' });
  });

  it('puts known key types first among the host key algorithms', () => {
    const defaults = ['ssh-ed25519', 'ecdsa-sha2-nistp256', 'rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'];
    expect(preferredHostKeyAlgorithms(defaults, ['ssh-rsa'])).toEqual([
      'rsa-sha2-512',
      'rsa-sha2-256',
      'ssh-rsa',
      'ssh-ed25519',
      'ecdsa-sha2-nistp256',
    ]);
    expect(preferredHostKeyAlgorithms(defaults, [])).toEqual(defaults);
    expect(preferredHostKeyAlgorithms(defaults, ['ssh-unknown'])).toEqual(defaults);
  });
});
