// The data converter of every tether client and worker: the encryption codec (sealing with
// `temporal.encryption.key_file`, opening always) and external storage for payloads over 1 MiB, kept by the Temporal
// server. One builder, so a client and a worker can never disagree on what a payload holds. Worker-only.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client, type ConnectionLike } from '@temporalio/client';
import { defaultPayloadConverter, type DataConverter, type Payload } from '@temporalio/common';
import { blobStorage, TemporalBlobDriver } from './blob-driver.js';
import { EncryptionCodec } from './encryption-codec.js';
import { payloadKeyring } from './encryption-settings.js';
import type { Keyring } from './keyring.js';

export interface TetherDataConverter {
  dataConverter: DataConverter;
  /** Whether payloads written through it are encrypted. */
  encrypts: boolean;
  /** Gives the blob store its connection: a client of `connection` that writes blobs as they are. */
  bind(connection: ConnectionLike, namespace: string, taskQueue: string): void;
}

/**
 * The compiled module a worker loads as its failure converter when it encrypts. Running from the sources (tests) it
 * does not exist: failures then stay as the default converter writes them.
 */
function encodedFailuresPath(): string | undefined {
  const js = fileURLToPath(new URL('./encoded-failures.js', import.meta.url));
  return existsSync(js) ? js : undefined;
}

/** A bad key file stops the caller here, with one line naming `temporal.encryption.key_file`. */
export function tetherDataConverter(keyring: Keyring | undefined = payloadKeyring()): TetherDataConverter {
  const driver = new TemporalBlobDriver();
  const failures = keyring ? encodedFailuresPath() : undefined;
  return {
    dataConverter: {
      payloadCodecs: [new EncryptionCodec(keyring)],
      externalStorage: blobStorage(driver),
      ...(failures ? { failureConverterPath: failures } : {}),
    },
    encrypts: keyring !== undefined,
    bind(connection, namespace, taskQueue) {
      driver.bind(new Client({ connection, namespace }), taskQueue);
    },
  };
}

/**
 * One value as a payload the way `dataConverter` writes it (the default JSON converter, then its codecs in the order
 * given, as the SDK applies them): for payloads sent outside the SDK, such as the heartbeat thread's
 * (src/liveness/beat-thread.ts), which must be sealed like every other.
 */
export async function encodePayload(dataConverter: DataConverter, value: unknown): Promise<Payload> {
  let payloads = [defaultPayloadConverter.toPayload(value)];
  for (const codec of dataConverter.payloadCodecs ?? []) payloads = await codec.encode(payloads);
  return payloads[0]!;
}
