// The payload codec every tether client and worker installs: with `temporal.encryption.key_file` it seals each
// payload it writes (AES-256-GCM, payload-cipher.ts); with or without keys it opens what it reads, so a run written
// encrypted is one clear line for a process without the key, never undecodable bytes. Worker-only.
import type { Payload, PayloadCodec } from '@temporalio/common';
import type { Keyring } from './keyring.js';
import { isEncrypted, openPayload, sealPayload } from './payload-cipher.js';

export class EncryptionCodec implements PayloadCodec {
  constructor(private readonly keyring: Keyring | undefined) {}

  get encrypts(): boolean {
    return this.keyring !== undefined;
  }

  encode(payloads: Payload[]): Promise<Payload[]> {
    const keyring = this.keyring;
    if (!keyring) return Promise.resolve(payloads);
    // A payload sealed already (passed through unopened) is not sealed twice.
    return Promise.resolve(payloads.map((p) => (isEncrypted(p) ? p : sealPayload(p, keyring.current))));
  }

  decode(payloads: Payload[]): Promise<Payload[]> {
    try {
      return Promise.resolve(payloads.map((p) => openPayload(p, this.keyring) as Payload));
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }
}
