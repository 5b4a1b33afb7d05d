// The SDK's external storage, kept by the Temporal server: a payload over 1 MiB (measured encoded, so in bytes and
// after encryption) is written as chunk signals to a blob workflow of its own (src/workflows/payload-blob.ts) and the
// history records a small claim instead. Every worker and client of the deployment reads it back from there, on any
// host, with nothing else to set up. Worker-only (clients use it too).
import { createHash } from 'node:crypto';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import {
  ExternalStorage,
  StorageDriverClaim,
  type Payload,
  type StorageDriver,
  type StorageDriverRetrieveContext,
  type StorageDriverStoreContext,
} from '@temporalio/common';
import {
  BLOB_CHUNK_SIGNAL,
  PAYLOAD_BLOB_WORKFLOW,
  payloadBlobId,
  type PayloadBlobInput,
} from '../common/shared-store-names.js';
import { TetherError } from '../common/errors.js';
import { jsonPayload, type RawPayload } from './json-payload.js';
import { leanType } from './lean-proto.js';

/** Payloads at least this large leave history; the byte budgets keep a run's ordinary payloads well below it. */
export const OFFLOAD_BYTES = 1024 * 1024;
/** Each chunk signal stays far below Temporal's 2 MB payload limit. */
const CHUNK_BYTES = 768 * 1024;
const DRIVER_NAME = 'tether-blob';
/** gRPC status NOT_FOUND. */
const NOT_FOUND = 5;

let payloadType: ReturnType<typeof leanType> | undefined;
const payloadProto = (): ReturnType<typeof leanType> => (payloadType ??= leanType('temporal.api.common.v1.Payload'));

interface Blob {
  input?: PayloadBlobInput;
  chunks: Map<number, Buffer>;
}

export class TemporalBlobDriver implements StorageDriver {
  readonly name = DRIVER_NAME;
  readonly type = 'tether.temporal-blob';
  private raw?: { client: Client; taskQueue: string };

  constructor(private readonly patienceMs = 30_000) {}

  /** `client` writes and reads blobs as they are: no codec (the payload is encoded already), no external storage. */
  bind(client: Client, taskQueue: string): void {
    this.raw = { client, taskQueue };
  }

  private bound(): { client: Client; taskQueue: string } {
    if (!this.raw) throw new Error('the payload blob store is used before its Temporal connection is made');
    return this.raw;
  }

  /** What the blob workflow's history holds: its input and the chunks signalled so far. */
  private async read(workflowId: string): Promise<Blob | undefined> {
    let history;
    try {
      history = await this.bound().client.workflow.getHandle(workflowId).fetchHistory();
    } catch (err) {
      // fetchHistory reports an unknown workflow as gRPC NOT_FOUND, not as WorkflowNotFoundError.
      if (err instanceof WorkflowNotFoundError || (err as { code?: unknown }).code === NOT_FOUND) return undefined;
      throw err;
    }
    const blob: Blob = { chunks: new Map() };
    for (const e of history.events ?? []) {
      const started = e.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
      if (started) {
        const v = jsonPayload(started as RawPayload);
        if (v.ok) blob.input = v.value as PayloadBlobInput;
      }
      const signal = e.workflowExecutionSignaledEventAttributes;
      if (signal?.signalName !== BLOB_CHUNK_SIGNAL) continue;
      const [index, data] = signal.input?.payloads ?? [];
      const i = jsonPayload(index as RawPayload);
      if (i.ok && typeof i.value === 'number' && data?.data && !blob.chunks.has(i.value))
        blob.chunks.set(i.value, Buffer.from(data.data));
    }
    return blob;
  }

  private async storeOne(payload: Payload, owner: string | undefined): Promise<StorageDriverClaim> {
    const { client, taskQueue } = this.bound();
    const bytes = Buffer.from(payloadProto().encode(payload).finish());
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const workflowId = payloadBlobId(taskQueue, sha256);
    const claim = new StorageDriverClaim({ workflowId, sha256, bytes: String(bytes.length) });
    const chunks = Math.ceil(bytes.length / CHUNK_BYTES);
    // The same payload again (a retried task): kept already, nothing is sent twice.
    const kept = await this.read(workflowId);
    const input: PayloadBlobInput = { sha256, bytes: bytes.length, chunks, ...(owner ? { owner } : {}) };
    for (let i = 0; i < chunks; i += 1) {
      if (kept?.chunks.has(i)) continue;
      await client.workflow.signalWithStart(PAYLOAD_BLOB_WORKFLOW, {
        workflowId,
        taskQueue,
        args: [input],
        signal: BLOB_CHUNK_SIGNAL,
        signalArgs: [i, bytes.subarray(i * CHUNK_BYTES, (i + 1) * CHUNK_BYTES)],
      });
    }
    return claim;
  }

  async store(context: StorageDriverStoreContext, payloads: Payload[]): Promise<StorageDriverClaim[]> {
    const owner = context.target?.kind === 'workflow' ? context.target.id : undefined;
    const claims: StorageDriverClaim[] = [];
    for (const p of payloads) claims.push(await this.storeOne(p, owner));
    return claims;
  }

  /**
   * The payload's bytes, once all its chunks are in the blob's history. Signals that arrive while the blob workflow
   * runs its first task are added to history only when that task completes, so a read right after the store can
   * find some missing for a moment: it is asked again for up to `patienceMs`.
   */
  private async bytesOf(workflowId: string, sha256: string, signal?: AbortSignal): Promise<Buffer> {
    const deadline = Date.now() + this.patienceMs;
    for (;;) {
      const blob = await this.read(workflowId);
      const chunks = blob?.input?.chunks;
      if (blob && chunks !== undefined && blob.chunks.size >= chunks) {
        const bytes = Buffer.concat(Array.from({ length: chunks }, (_, i) => blob.chunks.get(i) ?? Buffer.alloc(0)));
        if (createHash('sha256').update(bytes).digest('hex') === sha256) return bytes;
      }
      if (Date.now() >= deadline || signal?.aborted)
        throw new TetherError(
          'Config.Invalid',
          `a payload moved out of history (${workflowId}) is missing or incomplete on the Temporal server: it was removed, or written to another namespace`,
          false,
        );
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  async retrieve(context: StorageDriverRetrieveContext, claims: StorageDriverClaim[]): Promise<Payload[]> {
    const out: Payload[] = [];
    for (const { claimData } of claims) {
      const bytes = await this.bytesOf(claimData.workflowId ?? '', claimData.sha256 ?? '', context.abortSignal);
      const decoded = payloadProto().decode(bytes) as unknown as Payload;
      out.push({ metadata: { ...decoded.metadata }, data: decoded.data ?? new Uint8Array() });
    }
    return out;
  }
}

/** External storage over a blob driver: payloads of OFFLOAD_BYTES and more leave history. */
export function blobStorage(driver: TemporalBlobDriver): ExternalStorage {
  return new ExternalStorage({ drivers: [driver], payloadSizeThreshold: OFFLOAD_BYTES });
}
