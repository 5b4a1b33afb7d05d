// Integration-test harness: the real worker (real registry, activities, bundle) on the shared dev server, and a client.
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, type WorkflowBundle } from '@temporalio/worker';
import { inject } from 'vitest';
import { localModelResolver } from '../../src/models/local-model.js';
import { createWorker, installRuntimeLogging, workflowInterceptorsPath, workflowsPath } from '../../src/worker.js';
import type { AgentInput, AgentResult } from '../../src/common/types.js';
import { agentWorkflow } from '../../src/workflows/agent-workflow.js';
import { recordingLogger } from './recording-logger.js';
import { parseConfig, type TetherConfig } from '../../src/config/config.js';

let bundle: Promise<WorkflowBundle> | undefined;

/** The workflow bundle, built once per test file. */
export function workflowBundle(): Promise<WorkflowBundle> {
  bundle ??= bundleWorkflowCode({ workflowsPath: workflowsPath(), logger: undefined });
  return bundle;
}

let traced: Promise<WorkflowBundle> | undefined;

/** The bundle a worker that exports traces runs: the same workflows with the OpenTelemetry workflow interceptors. */
export function tracedWorkflowBundle(): Promise<WorkflowBundle> {
  traced ??= bundleWorkflowCode({
    workflowsPath: workflowsPath(),
    workflowInterceptorModules: [workflowInterceptorsPath()],
    logger: undefined,
  });
  return traced;
}

export interface Harness {
  client: Client;
  address: string;
  taskQueue: string;
  /** Starts a worker (running `bundle`, by default today's workflows), runs `fn`, then shuts the worker down. */
  withWorker<T>(modelUrl: string, fn: () => Promise<T>, bundle?: Promise<WorkflowBundle>): Promise<T>;
  run(input: Omit<AgentInput, 'model'> & { model?: string }, workflowId?: string): Promise<AgentResult>;
  close(): Promise<void>;
}

/** `config` applies to the first worker of the test file's process (tools, plugins and MCP load once per process). */
export async function harness(config: TetherConfig = parseConfig({})): Promise<Harness> {
  installRuntimeLogging(); // Temporal's own log lines go to the test TETHER_HOME, not the test output
  const address = inject('temporalAddress');
  const taskQueue = `test-${randomUUID()}`;
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  const native = await NativeConnection.connect({ address });
  const settings = { address, namespace: 'default', taskQueue, embedded: false };
  return {
    client,
    address,
    taskQueue,
    async withWorker(modelUrl, fn, bundle = workflowBundle()) {
      const { worker } = await createWorker({
        settings,
        connection: native,
        workflowBundle: await bundle,
        model: { openai: { baseURL: modelUrl, apiKey: 'test-key' }, local: localModelResolver() },
        config,
        log: recordingLogger(),
        shutdownGraceTime: '1 second',
      });
      return worker.runUntil(fn());
    },
    run(input, workflowId = `test-${randomUUID()}`) {
      return client.workflow.execute(agentWorkflow, {
        taskQueue,
        workflowId,
        args: [{ model: 'scripted', ...input }],
      });
    },
    async close() {
      await connection.close();
      await native.close();
    },
  };
}
