// The dev server with a SQLite file (as `tether server` and `tether run` start it): a run survives a server restart.
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { expect, it } from 'vitest';
import { freePort, startDevServer } from '../src/temporal/dev-server.js';
import { createWorker, installRuntimeLogging } from '../src/worker.js';
import type { AgentResult } from '../src/common/types.js';
import { workflowBundle } from './support/agent-harness.js';
import { recordingLogger } from './support/recording-logger.js';
import { startScriptedModel } from './support/scripted-model.js';
import { parseConfig } from '../src/config/config.js';

it('keeps a run started before a server restart and completes it after', async () => {
  installRuntimeLogging();
  const dbFile = join(mkdtempSync(join(tmpdir(), 'tether-restart-')), 'dev.sqlite');
  const port = await freePort();
  const model = await startScriptedModel([
    { toolCalls: [{ name: 'read_file', arguments: { path: 'missing.txt' } }] },
    { content: 'after the restart' },
  ]);
  const taskQueue = `restart-${randomUUID()}`;
  const workflowId = `restart-${randomUUID()}`;

  let server = await startDevServer({ port, dbFile, headless: true });
  let connection = await Connection.connect({ address: server.address });
  // Started while no worker runs: it only exists in the server's SQLite file.
  await new Client({ connection }).workflow.start('agentWorkflow', {
    taskQueue,
    workflowId,
    args: [{ task: 'survive', model: 'scripted', cwd: realpathSync(tmpdir()) }],
  });
  await connection.close();
  await server.stop();

  server = await startDevServer({ port, dbFile, headless: true });
  try {
    connection = await Connection.connect({ address: server.address });
    const client = new Client({ connection });
    const native = await NativeConnection.connect({ address: server.address });
    const { worker } = await createWorker({
      settings: { address: server.address, namespace: 'default', taskQueue, embedded: false },
      connection: native,
      workflowBundle: await workflowBundle(),
      model: { openai: { baseURL: model.url, apiKey: 'test' } },
      config: parseConfig({}),
      log: recordingLogger(),
    });
    const result = (await worker.runUntil(client.workflow.getHandle(workflowId).result())) as AgentResult;
    expect(result).toMatchObject({ status: 'completed', answer: 'after the restart', toolCalls: 1 });
    await connection.close();
    await native.close();
  } finally {
    await server.stop();
    await model.close();
  }
}, 120_000);
