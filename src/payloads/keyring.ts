// The payload encryption keys of `temporal.encryption.key_file`: 32-byte AES keys in base64, one a line, the first
// encrypts and every one decrypts (rotation). Each key has an id derived from it, written beside every ciphertext.
// Worker-only (the client's commands and the codec server read it too).
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { TetherError } from '../common/errors.js';

/** The setting every message about the keys names. */
export const KEY_FILE_SETTING = 'temporal.encryption.key_file';

const KEY_BYTES = 32;

export interface PayloadKey {
  /** 16 hex characters of a hash of the key: names it in payload metadata without revealing it. */
  id: string;
  key: Buffer;
}

export interface Keyring {
  /** The file the keys came from, for messages. */
  source: string;
  /** The key that encrypts: the file's first. */
  current: PayloadKey;
  byId: ReadonlyMap<string, PayloadKey>;
}

/** A key's id: a domain-separated SHA-256 of the key, so the id says nothing usable about it. */
export function keyIdOf(key: Buffer): string {
  return createHash('sha256').update('tether payload key id\0').update(key).digest('hex').slice(0, 16);
}

const bad = (source: string, detail: string): TetherError =>
  new TetherError('Config.Invalid', `${KEY_FILE_SETTING} (${source}): ${detail}`, false);

/** Strict base64 of exactly 32 bytes: a key with a typo must not become another key. */
function parseKey(line: string, n: number, source: string): Buffer {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(line) || line.length % 4 !== 0)
    throw bad(
      source,
      `line ${n} is not base64 (a key is 32 random bytes in base64, e.g. from 'openssl rand -base64 32')`,
    );
  const key = Buffer.from(line, 'base64');
  if (key.length !== KEY_BYTES || key.toString('base64') !== line)
    throw bad(source, `line ${n} holds ${key.length} bytes; a key is exactly ${KEY_BYTES} bytes in base64`);
  return key;
}

/** The keys in `text` (blank lines and `#` comments are skipped). */
export function parseKeyring(text: string, source: string): Keyring {
  const keys: PayloadKey[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const key = parseKey(line, i + 1, source);
    keys.push({ id: keyIdOf(key), key });
  });
  const current = keys[0];
  if (!current) throw bad(source, 'the file holds no key (one base64 key a line, the first encrypts)');
  const byId = new Map<string, PayloadKey>();
  for (const k of keys) {
    if (byId.has(k.id)) throw bad(source, `the key with id ${k.id} is there twice`);
    byId.set(k.id, k);
  }
  return { source, current, byId };
}

/**
 * The keys of `path`. A file others may read is refused: whoever reads it reads every run's history.
 */
export function loadKeyring(path: string): Keyring {
  let text: string;
  try {
    const mode = statSync(path).mode;
    if ((mode & 0o077) !== 0)
      throw bad(path, `the file may be read by others (mode ${(mode & 0o777).toString(8)}): chmod 600 it`);
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if (err instanceof TetherError) throw err;
    throw bad(path, `cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  return parseKeyring(text, path);
}
