// A real run of a scripted model in which every approval that appears is denied: the gate's route tests use it to
// show that each route asks (and that what it would have run never ran).
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { parseConfig } from '../../src/config/config.js';
import type { ApprovalChoice, PendingApproval } from '../../src/common/approval-types.js';
import type { AgentResult, AgentState } from '../../src/common/types.js';
import { harness, type Harness } from './agent-harness.js';
import { recordHistory } from './history.js';
import { startScriptedModel, type ChatRequest, type ScriptedModel, type Step } from './scripted-model.js';

/** What each tool call returned, in order (the message the model was sent after it). */
export const toolResults = (model: ScriptedModel): Record<string, unknown>[] =>
  model.requests.slice(1).map((r) => JSON.parse(r.messages.at(-1)!.content!) as Record<string, unknown>);

/**
 * Runs `steps` then 'done' with the terminal, file and code_execution toolsets (or `toolsets`); every approval is
 * denied as it appears, unless `decide` chooses otherwise. `record` names a history file to keep
 * (test/support/history.ts).
 */
export async function runDenying(
  h: Harness,
  cwd: string,
  steps: Step[],
  o: { idPrefix: string; record?: string; toolsets?: string[]; decide?: (p: PendingApproval) => ApprovalChoice },
): Promise<{
  model: ScriptedModel;
  asked: PendingApproval[];
  out: Record<string, unknown>[];
  result: AgentResult;
  workflowId: string;
}> {
  const model = await startScriptedModel([...steps, { content: 'done' }]);
  const asked: PendingApproval[] = [];
  const workflowId = `${o.idPrefix}-${randomUUID()}`;
  const result = await h.withWorker(model.url, async () => {
    const handle = await h.client.workflow.start('agentWorkflow', {
      taskQueue: h.taskQueue,
      workflowId,
      args: [
        {
          task: 't',
          model: 'scripted',
          cwd,
          enabledToolsets: o.toolsets ?? ['terminal', 'file', 'code_execution'],
        },
      ],
    });
    let finished = false;
    const done = handle.result().finally(() => (finished = true));
    while (!finished) {
      const s = await handle.query<AgentState>('state');
      for (const p of s.pendingApprovals) {
        if (asked.some((a) => a.approvalId === p.approvalId)) continue;
        asked.push(p);
        await handle.signal('approval', { approvalId: p.approvalId, choice: o.decide?.(p) ?? 'deny', reason: 'test' });
      }
      if (!finished) await new Promise((r) => setTimeout(r, 100));
    }
    const out = (await done) as AgentResult;
    if (o.record) recordHistory(h.address, handle.workflowId, o.record);
    return out;
  });
  expect(model.errors).toEqual([]);
  await model.close();
  return { model, asked, out: toolResults(model), result, workflowId };
}

/** One tool call as a model's step. */
export const call = (name: string, args: Record<string, unknown>): Step => ({ toolCalls: [{ name, arguments: args }] });

/** What a denied call returns to the model. */
export const denied = { denied: true, error: expect.stringMatching(/^The user denied this command/) };

/**
 * A route test file's worker harness (made before its tests, closed after) with a config file of its own in
 * TETHER_CONFIG, which `always` decisions write; and fresh task directories named for the file.
 */
export function routeSuite(name: string, made: (h: Harness) => void): { configFile: string; project: () => string } {
  const configFile = join(mkdtempSync(join(tmpdir(), `tether-${name}-conf-`)), 'config.yaml');
  let h: Harness | undefined;
  beforeAll(async () => {
    process.env.TETHER_CONFIG = configFile;
    h = await harness(parseConfig({}));
    made(h);
  });
  afterAll(async () => {
    delete process.env.TETHER_CONFIG;
    await h?.close();
  });
  return { configFile, project: () => realpathSync(mkdtempSync(join(tmpdir(), `tether-${name}-`))) };
}

/** The id of the background process the conversation last mentioned. */
export const lastProcessId = (req: ChatRequest): string => {
  for (const msg of [...req.messages].reverse()) {
    const id = /"process_id":"([^"]+)"/.exec(msg.content ?? '')?.[1];
    if (id) return id;
  }
  throw new Error('no process id in the conversation');
};

/** A `process` call on the last-mentioned background process. */
export const processCall =
  (action: string, extra: Record<string, unknown> = {}): Step =>
  (req) => ({ toolCalls: [{ name: 'process', arguments: { action, process_id: lastProcessId(req), ...extra } }] });

/**
 * Runs `cases` (after the `setup` steps; each command must ask) and `benign` commands (each must run unasked) in one
 * run, every approval denied; checks each asking command was asked about and denied and its marker (a file in
 * `cwd`) never made, and each benign command ran with output matching its pattern.
 */
export async function runFamily(
  h: Harness,
  cwd: string,
  idPrefix: string,
  setup: Step[],
  cases: { command: string; marker: string; stdin?: string }[],
  benign: { command: string; expect: RegExp }[],
): Promise<void> {
  const steps = [
    ...setup,
    ...cases.map((c) => call('terminal', { command: c.command, ...(c.stdin === undefined ? {} : { stdin: c.stdin }) })),
    ...benign.map((b) => call('terminal', { command: b.command })),
  ];
  const { out, asked } = await runDenying(h, cwd, steps, { idPrefix });
  const first = setup.length;
  const askedCommands = asked.map((a) => a.command.split('\n')[0]);
  for (const [i, c] of cases.entries()) {
    expect(askedCommands, c.command).toContain(c.command);
    expect(out[first + i], c.command).toMatchObject(denied);
    expect(existsSync(join(cwd, c.marker)), `${c.command}: marker`).toBe(false);
  }
  for (const [i, b] of benign.entries()) {
    expect(askedCommands, b.command).not.toContain(b.command);
    expect(out[first + cases.length + i], b.command).toMatchObject({
      exit_code: 0,
      output: expect.stringMatching(b.expect),
    });
  }
}
