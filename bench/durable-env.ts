// What the durable benchmarks share: an in-memory dev server, a client, one workflow bundle, and workers on demand.
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection } from '@temporalio/worker';
import type { WorkerGroup } from '../src/temporal/worker-group.js';
import { freePort, startDevServer } from '../src/temporal/dev-server.js';
import { createWorker, installRuntimeLogging, workflowsPath } from '../src/worker.js';
import { silent } from './stats.js';
import { parseConfig } from '../src/config/config.js';
import { localModelResolver } from '../src/models/local-model.js';

export interface DurableEnv {
  /** The dev server's host:port. */
  address: string;
  client: Client;
  /** For workers other than tether's (a bare SDK worker measuring Temporal's own floor). */
  native: NativeConnection;
  /** A worker on `taskQueue` whose model calls go to `modelUrl`. */
  worker(taskQueue: string, modelUrl: string, maxConcurrentActivities?: number): Promise<WorkerGroup>;
  close(): Promise<void>;
}

export async function durableEnv(): Promise<DurableEnv> {
  installRuntimeLogging();
  const server = await startDevServer({ port: await freePort(), headless: true });
  const connection = await Connection.connect({ address: server.address });
  const native = await NativeConnection.connect({ address: server.address });
  const bundle = await bundleWorkflowCode({ workflowsPath: workflowsPath(), logger: undefined });
  return {
    address: server.address,
    client: new Client({ connection }),
    native,
    async worker(taskQueue, modelUrl, maxConcurrentActivities) {
      const { worker } = await createWorker({
        settings: { address: server.address, namespace: 'default', taskQueue, embedded: false },
        connection: native,
        workflowBundle: bundle,
        model: { openai: { baseURL: modelUrl, apiKey: 'bench' }, local: localModelResolver() },
        config: parseConfig({}),
        log: silent,
        maxConcurrentActivities,
      });
      return worker;
    },
    async close() {
      await connection.close();
      await native.close();
      await server.stop();
    },
  };
}
