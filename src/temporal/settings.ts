// Temporal connection settings from the environment: address, namespace, task queue, TLS, API key. Worker-only.
import { readFileSync } from 'node:fs';
import type { TLSConfig } from '@temporalio/client';
import { TetherError } from '../common/errors.js';
import { defaultQueue, type QueueSource } from './default-queue.js';

export const DEFAULT_PORT = 7233;

export interface TemporalSettings {
  address: string;
  namespace: string;
  taskQueue: string;
  tls?: TLSConfig | boolean;
  apiKey?: string;
  /** TEMPORAL_ADDRESS was not set: tether may start its own dev server. */
  embedded: boolean;
  /** Where `taskQueue` came from (src/temporal/default-queue.ts); absent: said nowhere. */
  queueSource?: QueueSource;
}

function readSetting(name: string): Buffer {
  const path = process.env[name]!;
  try {
    return readFileSync(path);
  } catch (err) {
    throw new TetherError('Config.Invalid', `${name}=${path} cannot be read: ${(err as Error).message}`, false);
  }
}

/**
 * TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE (default "default"), TETHER_TASK_QUEUE (default: one queue per TETHER_HOME
 * with a server on this machine, "tether" with one elsewhere; src/temporal/default-queue.ts),
 * TEMPORAL_TLS_CERT + TEMPORAL_TLS_KEY (mTLS, file paths), TEMPORAL_TLS_CA, TEMPORAL_TLS=true,
 * TEMPORAL_API_KEY (Temporal Cloud; implies TLS).
 */
export function temporalSettings(env = process.env): TemporalSettings {
  // Set but empty is a mistake (a shell default gone wrong), not a request for the local dev server.
  for (const name of ['TEMPORAL_ADDRESS', 'TEMPORAL_NAMESPACE', 'TETHER_TASK_QUEUE'] as const) {
    if (env[name] !== undefined && env[name]!.trim() === '') {
      throw new TetherError(
        'Config.Invalid',
        `${name} is set but empty: unset it for the default, or give a value`,
        false,
      );
    }
  }
  const address = env.TEMPORAL_ADDRESS?.trim();
  const cert = env.TEMPORAL_TLS_CERT;
  const key = env.TEMPORAL_TLS_KEY;
  if (Boolean(cert) !== Boolean(key)) {
    throw new TetherError(
      'Config.Invalid',
      'TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY must be set together (mTLS client certificate and key)',
      false,
    );
  }
  let tls: TLSConfig | boolean | undefined;
  if (cert || env.TEMPORAL_TLS_CA) {
    tls = {
      ...(cert
        ? { clientCertPair: { crt: readSetting('TEMPORAL_TLS_CERT'), key: readSetting('TEMPORAL_TLS_KEY') } }
        : {}),
      ...(env.TEMPORAL_TLS_CA ? { serverRootCACertificate: readSetting('TEMPORAL_TLS_CA') } : {}),
    };
  } else if (env.TEMPORAL_TLS === 'true' || env.TEMPORAL_TLS === '1' || env.TEMPORAL_API_KEY) {
    tls = true;
  }
  if (address !== undefined && address !== '' && !/^[\w.-]+:\d+$/.test(address)) {
    throw new TetherError('Config.Invalid', `TEMPORAL_ADDRESS=${address} is not host:port`, false);
  }
  const named = env.TETHER_TASK_QUEUE?.trim();
  const queue = named
    ? { taskQueue: named, source: 'TETHER_TASK_QUEUE' as const }
    : defaultQueue(address || undefined, env);
  return {
    address: address || `127.0.0.1:${DEFAULT_PORT}`,
    namespace: env.TEMPORAL_NAMESPACE?.trim() || 'default',
    taskQueue: queue.taskQueue,
    queueSource: queue.source,
    tls,
    apiKey: env.TEMPORAL_API_KEY || undefined,
    embedded: !address,
  };
}
