// A payload sent outside the SDK (the heartbeat thread's details) is written as the worker's data converter writes any.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { encodePayload, tetherDataConverter } from './data-converter.js';
import { EncryptionCodec } from './encryption-codec.js';
import { parseKeyring } from './keyring.js';

const details = { worker: 'w-1', output: 'the command printed hunter2' };

describe('encodePayload', () => {
  it('seals the details when a key is set: no plaintext, and the codec opens them again', async () => {
    const ring = parseKeyring(randomBytes(32).toString('base64'), 'keys');
    const payload = await encodePayload(tetherDataConverter(ring).dataConverter, details);
    expect(Buffer.from(payload.data!).toString('latin1')).not.toContain('hunter2');
    const [opened] = await new EncryptionCodec(ring).decode([payload]);
    expect(JSON.parse(Buffer.from(opened!.data!).toString('utf8'))).toEqual(details);
  });

  it('writes plain JSON without a key, as the SDK would', async () => {
    const payload = await encodePayload({ payloadCodecs: [new EncryptionCodec(undefined)] }, details);
    expect(JSON.parse(Buffer.from(payload.data!).toString('utf8'))).toEqual(details);
  });
});
