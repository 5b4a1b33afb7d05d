// A bug in workflow code fails the workflow task, not the run: Temporal retries the task and shows the error, and a
// build with the bug fixed picks the run up where it stopped and completes it. The bug is injected into a test build of
// the real workflow bundle (test/fixtures/workflow-bug/summary.ts); the fixed build is the real bundle.
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { bundleWorkflowCode, type BundleOptions } from '@temporalio/worker';
import proto from '@temporalio/proto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { workflowsPath } from '../src/worker.js';
import type { AgentResult } from '../src/common/types.js';
import { harness, workflowBundle, type Harness } from './support/agent-harness.js';
import { until } from './support/cli.js';
import { recordHistory } from './support/history.js';
import { startScriptedModel } from './support/scripted-model.js';

const { EventType } = proto.temporal.api.enums.v1;
type WebpackConfig = Parameters<NonNullable<BundleOptions['webpackConfigHook']>>[0];

/** The real bundle, with src/workflows/summary.ts replaced by the buggy fixture where the workflows import it. */
function buggyBundle() {
  const workflowsDir = dirname(workflowsPath());
  const fixture = fileURLToPath(new URL('./fixtures/workflow-bug/summary.ts', import.meta.url));
  const inject = {
    apply(compiler: {
      hooks: { normalModuleFactory: { tap(n: string, f: (nmf: NormalModuleFactory) => void): void } };
    }) {
      compiler.hooks.normalModuleFactory.tap('inject-workflow-bug', (nmf) => {
        nmf.hooks.beforeResolve.tap('inject-workflow-bug', (data) => {
          if (data.request === './summary.js' && data.context === workflowsDir) data.request = fixture;
        });
      });
    },
  };
  return bundleWorkflowCode({
    workflowsPath: workflowsPath(),
    logger: undefined,
    webpackConfigHook: (config: WebpackConfig) =>
      ({ ...config, plugins: [...(config.plugins ?? []), inject] }) as WebpackConfig,
  });
}
interface NormalModuleFactory {
  hooks: { beforeResolve: { tap(n: string, f: (data: { request: string; context: string }) => void): void } };
}

let h: Harness;
beforeAll(async () => {
  h = await harness();
});
afterAll(() => h.close());

it('a workflow code bug leaves the run retrying its workflow task; a fixed build completes it', async () => {
  const model = await startScriptedModel([{ content: 'done, and trip the injected bug on the way' }]);
  const workflowId = `workflow-bug-${randomUUID()}`;
  const handle = await h.client.workflow.start('agentWorkflow', {
    taskQueue: h.taskQueue,
    workflowId,
    args: [{ task: 't', model: 'scripted', cwd: join(fileURLToPath(new URL('.', import.meta.url))) }],
  });
  const events = async () => (await handle.fetchHistory()).events ?? [];
  await h.withWorker(
    model.url,
    async () => {
      // The task that took the reply failed with the bug's TypeError; the run itself did not fail.
      await until('the failed workflow task', async () =>
        (await events()).some((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED),
      );
      const failed = (await events()).find((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED)!;
      expect(failed.workflowTaskFailedEventAttributes?.failure?.message).toMatch(/Cannot read properties of undefined/);
      // Retried, and failing again while the bug is there: the run waits, running, for a fixed build.
      await until('a retried workflow task', async () => {
        const d = await handle.describe();
        return (d.raw.pendingWorkflowTask?.attempt ?? 0) > 1;
      });
      expect((await handle.describe()).status.name).toBe('RUNNING');
    },
    buggyBundle(),
  );
  // The fixed build (the real bundle) replays the history up to the failed task and goes on.
  const result = await h.withWorker(model.url, () => handle.result() as Promise<AgentResult>, workflowBundle());
  expect(result).toMatchObject({ status: 'completed', answer: 'done, and trip the injected bug on the way' });
  expect((await events()).some((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED)).toBe(false);
  expect(model.requests).toHaveLength(1);
  recordHistory(h.address, workflowId, 'workflow-bug-fixed');
  await model.close();
}, 180_000);
