// Seals and opens one Temporal payload with AES-256-GCM (Node's crypto): the whole payload, metadata included, is
// encrypted under a random 96-bit nonce, and the result names the key by id. Synchronous, so the CLI's quick reads
// can open a payload without the SDK. Worker-only (clients and the codec server use it too).
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { TetherError } from '../common/errors.js';
import { leanType } from './lean-proto.js';
import { KEY_FILE_SETTING, type Keyring, type PayloadKey } from './keyring.js';

/** The encoding Temporal's samples and codec servers use for an encrypted payload. */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';
const CIPHER_METADATA = 'encryption-cipher';
const CIPHER = 'AES-256-GCM';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

export interface Payload {
  metadata?: Record<string, Uint8Array> | null;
  data?: Uint8Array | null;
}

const text = (b: Uint8Array | undefined | null): string | undefined =>
  b ? Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8') : undefined;

export const isEncrypted = (p: Payload | null | undefined): boolean =>
  text(p?.metadata?.encoding) === ENCRYPTED_ENCODING;

/** The id of the key a payload was sealed with, when it is sealed. */
export const sealedKeyId = (p: Payload): string | undefined =>
  isEncrypted(p) ? (text(p.metadata?.[KEY_ID_METADATA]) ?? '') : undefined;

/** The additional data binds the ciphertext to its key id, so a payload cannot be relabelled for another key. */
const aad = (keyId: string): Buffer => Buffer.from(`tether-payload-v1:${keyId}`, 'utf8');

let payloadType: ReturnType<typeof leanType> | undefined;
const payloadProto = (): ReturnType<typeof leanType> => (payloadType ??= leanType('temporal.api.common.v1.Payload'));

export function sealPayload(payload: Payload, key: PayloadKey): Payload {
  const plain = payloadProto()
    .encode({ metadata: payload.metadata ?? {}, data: payload.data ?? new Uint8Array() })
    .finish();
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key.key, nonce, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad(key.id));
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return {
    metadata: {
      encoding: Buffer.from(ENCRYPTED_ENCODING),
      [KEY_ID_METADATA]: Buffer.from(key.id),
      [CIPHER_METADATA]: Buffer.from(CIPHER),
    },
    data: Buffer.concat([nonce, body, cipher.getAuthTag()]),
  };
}

const unreadable = (detail: string): TetherError => new TetherError('Config.Invalid', detail, false);

/**
 * The payload a sealed one holds; any other payload as it is. Without the right key this is one line naming the
 * setting, never bytes that look like data.
 */
export function openPayload(payload: Payload, keyring: Keyring | undefined): Payload {
  const keyId = sealedKeyId(payload);
  if (keyId === undefined) return payload;
  if (!keyring)
    throw unreadable(
      `this data was written encrypted (key id ${keyId}) and ${KEY_FILE_SETTING} is not set here: set it in config.yaml to the key file the workers use`,
    );
  const key = keyring.byId.get(keyId);
  if (!key)
    throw unreadable(
      `this data was encrypted with key id ${keyId}, which ${KEY_FILE_SETTING} (${keyring.source}) does not hold: add that key to the file (after the first line, which encrypts)`,
    );
  const data = Buffer.from(payload.data ?? new Uint8Array());
  if (data.length < NONCE_BYTES + TAG_BYTES) throw unreadable(`an encrypted payload (key id ${keyId}) is truncated`);
  const decipher = createDecipheriv('aes-256-gcm', key.key, data.subarray(0, NONCE_BYTES), {
    authTagLength: TAG_BYTES,
  });
  decipher.setAAD(aad(keyId));
  decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
  let plain: Buffer;
  try {
    plain = Buffer.concat([decipher.update(data.subarray(NONCE_BYTES, data.length - TAG_BYTES)), decipher.final()]);
  } catch {
    throw unreadable(
      `an encrypted payload (key id ${keyId}) does not decrypt with the key of that id in ${KEY_FILE_SETTING} (${keyring.source}): it was changed, or the key file holds another key`,
    );
  }
  const decoded = payloadProto().decode(plain) as unknown as Payload;
  return { metadata: decoded.metadata ?? {}, data: decoded.data ?? new Uint8Array() };
}
