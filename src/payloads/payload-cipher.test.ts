// Payload encryption as a table of what holds: keys are read strictly, sealed payloads open only with their key,
// and every way of not having it is one line naming the setting.
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EncryptionCodec } from './encryption-codec.js';
import { keyIdOf, loadKeyring, parseKeyring } from './keyring.js';
import { isEncrypted, openPayload, sealPayload, type Payload } from './payload-cipher.js';

const key = (): string => randomBytes(32).toString('base64');
const json = (value: unknown): Payload => ({
  metadata: { encoding: Buffer.from('json/plain') },
  data: Buffer.from(JSON.stringify(value)),
});
const text = (p: Payload): string => Buffer.from(p.data!).toString('utf8');

describe('the key file', () => {
  it('takes base64 keys of 32 bytes, one a line, the first encrypting; comments and blank lines are skipped', () => {
    const [a, b] = [key(), key()];
    const ring = parseKeyring(`# current\n${a}\n\n  ${b}  \n`, 'keys');
    expect(ring.current.key.toString('base64')).toBe(a);
    expect([...ring.byId.keys()]).toEqual([keyIdOf(Buffer.from(a, 'base64')), keyIdOf(Buffer.from(b, 'base64'))]);
    expect(ring.current.id).toMatch(/^[0-9a-f]{16}$/);
  });

  it.each([
    ['no key at all', '# only a comment\n', /holds no key/],
    ['a key of 16 bytes', randomBytes(16).toString('base64'), /line 1 holds 16 bytes; a key is exactly 32 bytes/],
    ['a key of 33 bytes', randomBytes(33).toString('base64'), /holds 33 bytes/],
    ['hex instead of base64', randomBytes(32).toString('hex'), /line 1 (is not base64|holds 48 bytes)/],
    ['a typo in the key', `${key().slice(0, -3)}!==`, /line 1 is not base64/],
    ['the same key twice', (() => { const k = key(); return `${k}\n${k}`; })(), /is there twice/], // prettier-ignore
  ])('refuses %s, naming the setting', (_, body, message) => {
    expect(() => parseKeyring(body, '/etc/tether.keys')).toThrow(
      new RegExp(`^temporal\\.encryption\\.key_file \\(/etc/tether\\.keys\\): .*${message.source}`),
    );
  });

  it('refuses a file others may read, and a file that is not there', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tether-keys-'));
    const file = join(dir, 'keys');
    writeFileSync(file, `${key()}\n`);
    chmodSync(file, 0o644);
    expect(() => loadKeyring(file)).toThrow(/may be read by others \(mode 644\): chmod 600 it/);
    chmodSync(file, 0o600);
    expect(loadKeyring(file).byId.size).toBe(1);
    expect(() => loadKeyring(join(dir, 'gone'))).toThrow(
      /temporal\.encryption\.key_file \(.*gone\): cannot be read: ENOENT/,
    );
  });
});

describe('a sealed payload', () => {
  const ring = parseKeyring(`${key()}\n${key()}`, 'keys');

  it('holds the whole payload (metadata too) under a fresh nonce, naming its key by id', () => {
    const plain = json({ task: 'deploy the walrus' });
    const a = sealPayload(plain, ring.current);
    const b = sealPayload(plain, ring.current);
    expect(isEncrypted(a)).toBe(true);
    expect(Buffer.from(a.metadata!['encryption-key-id']!).toString()).toBe(ring.current.id);
    expect(Buffer.from(a.data!).includes('walrus')).toBe(false);
    expect(Buffer.from(a.data!).includes('json/plain')).toBe(false);
    // 96-bit random nonces: the same payload never seals to the same bytes.
    expect(Buffer.from(a.data!).subarray(0, 12).equals(Buffer.from(b.data!).subarray(0, 12))).toBe(false);
    const opened = openPayload(a, ring);
    expect(text(opened)).toBe('{"task":"deploy the walrus"}');
    expect(Buffer.from(opened.metadata!.encoding!).toString()).toBe('json/plain');
  });

  it('opens with any key of the file, so rotating keeps old runs readable', () => {
    const old = parseKeyring(`${[...ring.byId.values()][1]!.key.toString('base64')}`, 'old');
    const sealedOld = sealPayload(json(1), old.current);
    expect(text(openPayload(sealedOld, ring))).toBe('1');
  });

  it('passes a payload that is not sealed through unchanged, with or without keys', () => {
    const plain = json('x');
    expect(openPayload(plain, ring)).toBe(plain);
    expect(openPayload(plain, undefined)).toBe(plain);
  });

  const flip = (p: Payload): Payload => {
    const d = Buffer.from(p.data!);
    d[20]! ^= 1;
    return { ...p, data: d };
  };
  const relabel = (p: Payload): Payload => ({
    ...p,
    metadata: { ...p.metadata, 'encryption-key-id': Buffer.from([...ring.byId.keys()][1]!) },
  });
  const truncate = (p: Payload): Payload => ({ ...p, data: Buffer.from(p.data!).subarray(0, 20) });
  const same = (p: Payload): Payload => p;
  it.each([
    [
      'no key file here',
      undefined,
      same,
      /written encrypted \(key id [0-9a-f]{16}\) and temporal\.encryption\.key_file is not set here/,
    ],
    [
      'a key file without that key',
      parseKeyring(key(), 'other'),
      same,
      /encrypted with key id [0-9a-f]{16}, which temporal\.encryption\.key_file \(other\) does not hold/,
    ],
    ['one flipped bit', ring, flip, /does not decrypt with the key of that id/],
    ['a relabelled key id', ring, relabel, /does not decrypt with the key of that id/],
    ['a truncated body', ring, truncate, /is truncated/],
  ])('is one clear line, never data, with %s', (_, keys, change, message) => {
    const sealed = change(sealPayload(json({ secret: 's3cret' }), ring.current));
    expect(() => openPayload(sealed, keys)).toThrow(message);
  });
});

describe('the codec', () => {
  it('seals what it writes with the first key, and only with a key file', async () => {
    const ring = parseKeyring(key(), 'keys');
    const [sealed] = await new EncryptionCodec(ring).encode([json('hello')]);
    expect(isEncrypted(sealed!)).toBe(true);
    // Sealed once: a payload that is sealed already passes through.
    expect(await new EncryptionCodec(ring).encode([sealed!])).toEqual([sealed]);
    expect(text((await new EncryptionCodec(ring).decode([sealed!]))[0]!)).toBe('"hello"');
    const plain = json('hello');
    expect(await new EncryptionCodec(undefined).encode([plain])).toEqual([plain]);
    await expect(new EncryptionCodec(undefined).decode([sealed!])).rejects.toThrow(/key_file is not set here/);
  });
});
