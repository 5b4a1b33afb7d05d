// A run closes only once its message handlers have finished: a network question still waiting for a person when the
// run ends is answered (refused: the run ended), never abandoned with its sender left hanging; the run completes.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import proto from '@temporalio/proto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { EgressAnswer, EgressRequest } from '../src/common/egress-types.js';
import type { AgentResult, AgentState } from '../src/common/types.js';
import { EGRESS_UPDATE } from '../src/common/workflow-messages.js';
import { harness, type Harness } from './support/agent-harness.js';
import { until } from './support/cli.js';
import { recordHistory } from './support/history.js';
import { startScriptedModel } from './support/scripted-model.js';

const { EventType } = proto.temporal.api.enums.v1;

let h: Harness;
beforeAll(async () => {
  h = await harness();
});
afterAll(() => h.close());

it('a network question still waiting when the run completes is answered before the run closes', async () => {
  let asked = false;
  const model = await startScriptedModel([
    async () => {
      // The run answers only once a background process's connection waits for a person.
      await until('the network question', () => asked);
      return { content: 'done' };
    },
  ]);
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-handlers-')));
  await h.withWorker(model.url, async () => {
    const handle = await h.client.workflow.start('agentWorkflow', {
      taskQueue: h.taskQueue,
      workflowId: `handlers-${randomUUID()}`,
      args: [{ task: 't', model: 'scripted', cwd }],
    });
    const request: EgressRequest = {
      requestId: randomUUID(),
      host: 'example.com',
      port: 443,
      via: 'connect',
      command: 'sleep 100 &',
      mode: 'manual',
      timeoutSeconds: 3600,
      notify: false,
    };
    const answer = handle.executeUpdate<EgressAnswer, [EgressRequest]>(EGRESS_UPDATE, { args: [request] });
    await until('the question to be pending', async () => {
      const s = await handle.query<AgentState>('state');
      return s.pendingApprovals.some((p) => p.kind === 'network');
    });
    asked = true;
    expect(await answer).toEqual({ allow: false, reason: 'the run ended before anyone decided' });
    expect((await handle.result()) as AgentResult).toMatchObject({ status: 'completed', answer: 'done' });
    // The update's completion is in the history before the run's.
    const types = ((await handle.fetchHistory()).events ?? []).map((e) => e.eventType);
    const updated = types.indexOf(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED);
    expect(updated).toBeGreaterThan(0);
    expect(updated).toBeLessThan(types.indexOf(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED));
    recordHistory(h.address, handle.workflowId, 'handlers-finish');
  });
  await model.close();
}, 120_000);
