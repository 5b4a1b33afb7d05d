// Two hosts, one Temporal service: `tether worker` processes with TETHER_HOMEs of their own on one task queue, the
// first writing a note, the second reading it through `memory` and finding it through `session_search`. Shared by
// the dev-server test and the cluster test (test/cluster/shared-store.test.ts).
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { inject } from 'vitest';
import type { AgentResult } from '../../src/common/types.js';
import { journalSegmentId, SESSION_JOURNAL_WORKFLOW } from '../../src/common/shared-store-names.js';
import { startScriptedModel, type ChatRequest, type ScriptedModel, type Step } from './scripted-model.js';
import type { WorkerPool } from './worker-process.js';

export interface Host {
  env: Record<string, string>;
  model: ScriptedModel;
}

/** A host: its own TETHER_HOME (with `config` as config.yaml), its own model, the deployment's task queue. */
export async function host(taskQueue: string, script: Step[], config = ''): Promise<Host> {
  const home = mkdtempSync(join(tmpdir(), 'tether-host-'));
  if (config) writeFileSync(join(home, 'config.yaml'), config);
  const model = await startScriptedModel(script);
  return {
    model,
    env: {
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TETHER_TASK_QUEUE: taskQueue,
      OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: 'test-key',
      TETHER_HOME: home,
    },
  };
}

const call = (name: string, args: Record<string, unknown>): Step => ({ toolCalls: [{ name, arguments: args }] });

/** The JSON result of the latest tool call the model was sent in `req`. */
export const lastToolResult = (req: ChatRequest): Record<string, unknown> =>
  JSON.parse(req.messages.filter((m) => m.role === 'tool').at(-1)!.content!) as Record<string, unknown>;

export interface TwoHosts {
  taskQueue: string;
  note: string;
  word: string;
  firstRun: string;
  /** What the second host's run was told by `memory` read and by `session_search`. */
  read: { notes: string[] };
  found: { results: { run: string; turn: number; role: string; snippet: string }[]; note?: string };
}

/**
 * Host A writes a note (and its run's transcript), then goes away; host B, started afterwards with nothing of A's,
 * reads memory and searches. `config` is both hosts' config.yaml. The journal's first segments are started small, so
 * A's transcript spans several and B reads across them.
 */
export async function twoHosts(
  client: Client,
  workers: WorkerPool,
  models: ScriptedModel[],
  config = '',
): Promise<TwoHosts> {
  const taskQueue = `hosts-${randomUUID()}`;
  const word = `walrus${randomUUID().slice(0, 8)}`;
  const note = `the deploy key of ${word} is in vault path secret/deploy`;
  for (let n = 0; n < 3; n += 1)
    await client.workflow.start(SESSION_JOURNAL_WORKFLOW, {
      taskQueue,
      workflowId: journalSegmentId(taskQueue, n),
      args: [{ sealAfterBytes: 1 }],
    });
  const a = await host(
    taskQueue,
    [call('memory', { action: 'add', content: note }), { content: `noted ${word}` }],
    config,
  );
  const b = await host(
    taskQueue,
    [call('memory', { action: 'read' }), call('session_search', { query: word }), { content: 'found it' }],
    config,
  );
  models.push(a.model, b.model);
  const run = async (): Promise<{ id: string; result: AgentResult }> => {
    const id = `hosts-${randomUUID()}`;
    const handle = await client.workflow.start('agentWorkflow', {
      taskQueue,
      workflowId: id,
      args: [{ task: `remember where the ${word} key is`, model: 'scripted', cwd: tmpdir() }],
    });
    return { id, result: (await handle.result()) as AgentResult };
  };
  const workerA = await workers.start(a.env);
  const first = await run();
  await workerA.kill('SIGTERM');
  const workerB = await workers.start(b.env);
  const second = await run();
  await workerB.kill('SIGTERM');
  if (first.result.status !== 'completed' || second.result.status !== 'completed')
    throw new Error(`runs did not complete: ${JSON.stringify([first.result, second.result])}`);
  return {
    taskQueue,
    note,
    word,
    firstRun: first.id,
    read: lastToolResult(b.model.requests[1]!) as TwoHosts['read'],
    found: lastToolResult(b.model.requests[2]!) as TwoHosts['found'],
  };
}
