// Approvals on the real dev server with a real worker: waiting, deciding by update and signal, rejections,
// deny reaching the model, session and always scopes, hardline refusals, plugin hooks, smart approval.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, existsSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { signBody } from '../src/approval/signature.js';
import { loadConfig, parseConfig } from '../src/config/config.js';
import { hooks, registry } from '../src/registry/index.js';
import type { ApprovalDecision } from '../src/common/approval-types.js';
import type { AgentResult, AgentState } from '../src/common/types.js';
import { harness, type Harness } from './support/agent-harness.js';
import { until } from './support/cli.js';
import { recordHistory } from './support/history.js';
import { lastToolResults, startScriptedModel, type ChatRequest, type Step } from './support/scripted-model.js';

let h: Harness;
const configFile = join(mkdtempSync(join(tmpdir(), 'tether-approvals-conf-')), 'config.yaml');

beforeAll(async () => {
  process.env.TETHER_CONFIG = configFile;
  h = await harness(parseConfig({ approvals: { smart_model: 'judge' } }));
});
afterAll(async () => {
  delete process.env.TETHER_CONFIG;
  await h.close();
});

const project = (): string => realpathSync(mkdtempSync(join(tmpdir(), 'tether-approvals-')));
const lines = (file: string): string[] =>
  existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
const state = (handle: WorkflowHandle): Promise<AgentState> => handle.query<AgentState>('state');

async function pendingOf(handle: WorkflowHandle, count = 1): Promise<AgentState['pendingApprovals']> {
  let s: AgentState | undefined;
  await until(
    `${count} pending approval(s)`,
    async () => (s = await state(handle)).pendingApprovals.length >= count,
    20_000,
  );
  return s!.pendingApprovals;
}

const decide = (handle: WorkflowHandle, d: ApprovalDecision): Promise<unknown> =>
  handle.executeUpdate('decideApproval', { args: [d] });

/** The validator's reason for rejecting an update. */
async function rejection(p: Promise<unknown>): Promise<string> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
  return String((err as WorkflowUpdateFailedError).cause?.message);
}

/**
 * The tool call and gate check activities of a run, in the order scheduled (an eager try counts as the call it is).
 * A gated call is judged inside its own activity (runGatedTool): a call nobody decides costs one activity.
 */
async function toolActivities(handle: WorkflowHandle): Promise<string[]> {
  const { events } = await handle.fetchHistory();
  return (events ?? [])
    .map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? '')
    .filter((n) => /^(runTool|runGatedTool|assessCall)/.test(n))
    .map((n) => n.replace(/OnHolder$/, ''));
}

/** `kubectl delete` asks (rule kubectl-delete) and is harmless here: kubectl is not installed. */
const asking = (marker: string): string => `kubectl delete pod demo 2>/dev/null; echo ran >> ${marker}`;

describe('a dangerous command', () => {
  it('waits for a decision; wrong, mismatched and repeated decisions are rejected; the approved command runs once', async () => {
    const cwd = project();
    const marker = join(cwd, 'ran.txt');
    const model = await startScriptedModel([
      { toolCalls: [{ name: 'terminal', arguments: { command: asking(marker) } }] },
      { content: 'done' },
    ]);
    await h.withWorker(model.url, async () => {
      const handle = await h.client.workflow.start('agentWorkflow', {
        taskQueue: h.taskQueue,
        workflowId: `ap-${randomUUID()}`,
        args: [{ task: 't', model: 'scripted', cwd }],
      });
      const [p] = await pendingOf(handle);
      expect(p).toMatchObject({ tool: 'terminal', command: asking(marker), callId: 'call_1_1' });
      expect(p!.findings.map((f) => f.rule)).toEqual(['kubectl-delete']);
      expect((await state(handle)).currentToolCalls[0]!.status).toBe('awaiting_approval');
      expect(lines(marker)).toEqual([]);

      // The rejection names no other approval of the run (a sender guessing ids learns nothing).
      const unknown = await rejection(decide(handle, { approvalId: 'ap-nope', choice: 'once' }));
      expect(unknown).toBe('unknown approval id ap-nope: it is not pending in this run');
      expect(unknown).not.toContain(p!.approvalId);
      expect(
        await rejection(decide(handle, { approvalId: p!.approvalId, choice: 'once', argsDigest: 'ffff' })),
      ).toMatch(/different arguments/);
      expect(await rejection(decide(handle, { approvalId: p!.approvalId, choice: 'once', callId: 'call_9' }))).toMatch(
        /is for tool call call_1_1/,
      );
      expect(await rejection(decide(handle, { approvalId: p!.approvalId, choice: 'maybe' as never }))).toMatch(
        /choice must be one of once, session, always, deny/,
      );
      await expect(
        decide(handle, {
          approvalId: p!.approvalId,
          choice: 'once',
          callId: p!.callId,
          argsDigest: p!.argsDigest,
          by: 'test',
        }),
      ).resolves.toEqual({ approvalId: p!.approvalId, choice: 'once', applies: 'once' });
      expect(await rejection(decide(handle, { approvalId: p!.approvalId, choice: 'once' }))).toMatch(/already decided/);
      // A forged signal cannot be answered, so its rejection is recorded in the state.
      await handle.signal('approval', { approvalId: 'ap-forged', choice: 'once' });

      const result = (await handle.result()) as AgentResult;
      recordHistory(h.address, handle.workflowId, 'approval-decided');
      expect(result.status).toBe('completed');
      expect(lines(marker)).toEqual(['ran']);
      // Judged in the call's activity and sent back unrun; after the decision, run once without a second check.
      expect(await toolActivities(handle)).toEqual(['runGatedTool', 'runTool']);
      const s = await state(handle);
      expect(s.approvals.decided).toMatchObject([
        { approvalId: p!.approvalId, choice: 'once', source: 'person', by: 'test' },
      ]);
      expect(s.approvals.rejected.map((r) => r.reason)).toEqual([
        expect.stringMatching(/unknown approval id ap-forged/),
      ]);
    });
    expect(model.errors).toEqual([]);
    await model.close();
  });

  it('deny reaches the model as an error with the reason, and the run goes on', async () => {
    const cwd = project();
    const marker = join(cwd, 'ran.txt');
    const model = await startScriptedModel([
      { toolCalls: [{ name: 'terminal', arguments: { command: asking(marker) } }] },
      { toolCalls: [{ name: 'terminal', arguments: { command: 'echo fine' } }] },
      { content: 'gave up on deleting' },
    ]);
    await h.withWorker(model.url, async () => {
      const handle = await h.client.workflow.start('agentWorkflow', {
        taskQueue: h.taskQueue,
        workflowId: `ap-${randomUUID()}`,
        args: [{ task: 't', model: 'scripted', cwd }],
      });
      const [p] = await pendingOf(handle);
      await handle.signal('approval', { approvalId: p!.approvalId, choice: 'deny', reason: 'not in production' });
      expect(((await handle.result()) as AgentResult).answer).toBe('gave up on deleting');
      // The denied call was judged and never run; the harmless one was judged and run in one activity.
      expect(await toolActivities(handle)).toEqual(['runGatedTool', 'runGatedTool']);
    });
    const denied = model.requests[1]!.messages.at(-1)!;
    expect(JSON.parse(denied.content!)).toEqual({
      error: expect.stringMatching(/^The user denied this command: not in production\./),
      denied: true,
    });
    expect(lines(marker)).toEqual([]);
    expect(lastToolResults(model)[1]).toMatchObject({ exit_code: 0 });
    await model.close();
  });

  it('a timeout counts as a denial', async () => {
    const cwd = project();
    const model = await startScriptedModel([
      { toolCalls: [{ name: 'terminal', arguments: { command: asking(join(cwd, 'ran.txt')) } }] },
      { content: 'ok' },
    ]);
    await h.withWorker(model.url, async () => {
      const result = await h.run({ task: 't', cwd, approvalTimeoutSeconds: 2 });
      expect(result.status).toBe('completed');
    });
    expect(JSON.parse(model.requests[1]!.messages.at(-1)!.content!).error).toMatch(
      /No one approved this command within 2 seconds/,
    );
    await model.close();
  });

  it('hardline commands are refused without asking, even with approvals off', async () => {
    const cwd = project();
    const model = await startScriptedModel([
      { toolCalls: [{ name: 'terminal', arguments: { command: 'sudo rm -rf / --no-preserve-root' } }] },
      { content: 'refused' },
    ]);
    await h.withWorker(model.url, () => h.run({ task: 't', cwd, approvalMode: 'off' }));
    const result = JSON.parse(model.requests[1]!.messages.at(-1)!.content!);
    expect(result).toMatchObject({ hardline: true, error: expect.stringMatching(/never run.*\[delete-root\]/) });
    await model.close();
  });

  it('mode off runs dangerous commands without asking', async () => {
    const cwd = project();
    const marker = join(cwd, 'ran.txt');
    const model = await startScriptedModel([
      { toolCalls: [{ name: 'terminal', arguments: { command: asking(marker) } }] },
      { content: 'ok' },
    ]);
    await h.withWorker(model.url, () => h.run({ task: 't', cwd, approvalMode: 'off' }));
    expect(lines(marker)).toEqual(['ran']);
    await model.close();
  });
});

describe('scopes', () => {
  it('session covers that exact command for the run; always adds it, in this directory, for this worker and the next', async () => {
    const cwd = project();
    const marker = join(cwd, 'ran.txt');
    writeFileSync(configFile, '# kept\nfiles:\n  allow_outside_cwd: false\n');
    const destroy = `terraform destroy -auto-approve 2>/dev/null; echo destroyed >> ${marker}`;
    const other = `kubectl delete pod other 2>/dev/null; echo other >> ${marker}`;
    // The first run asks four times; a second run (task 'again') on the same worker runs the destroy once more.
    const again = (req: ChatRequest): boolean => req.messages.some((m) => m.role === 'user' && m.content === 'again');
    const run1: Step[] = [
      { toolCalls: [{ name: 'terminal', arguments: { command: asking(marker) } }] },
      { toolCalls: [{ name: 'terminal', arguments: { command: asking(marker) } }] }, // the same command: no prompt
      { toolCalls: [{ name: 'terminal', arguments: { command: other } }] }, // the same rule, another command: asks
      { toolCalls: [{ name: 'terminal', arguments: { command: destroy } }] }, // another rule: asks
      { content: 'done' },
    ];
    const run2: Step[] = [{ toolCalls: [{ name: 'terminal', arguments: { command: destroy } }] }, { content: 'again' }];
    const model = await startScriptedModel(
      run1.map((step, i) => (req: ChatRequest) => {
        const s = again(req) ? run2[i] : step;
        if (!s) throw new Error(`no step ${i}`);
        return typeof s === 'function' ? s(req) : s;
      }),
    );
    await h.withWorker(model.url, async () => {
      const handle = await h.client.workflow.start('agentWorkflow', {
        taskQueue: h.taskQueue,
        workflowId: `ap-${randomUUID()}`,
        args: [{ task: 't', model: 'scripted', cwd }],
      });
      const [first] = await pendingOf(handle);
      expect(first!.scope).toMatchObject({ covers: `this exact command in ${cwd}` });
      await decide(handle, { approvalId: first!.approvalId, choice: 'session' });
      await until('the second command ran without a prompt', () => lines(marker).length === 2);
      const [second] = await pendingOf(handle);
      expect(second!.command).toBe(other);
      await decide(handle, { approvalId: second!.approvalId, choice: 'once' });
      let third: AgentState['pendingApprovals'][number] | undefined;
      await until('the third approval', async () => {
        third = (await state(handle)).pendingApprovals.find((p) => p.command === destroy);
        return third !== undefined;
      });
      expect(third!.findings.map((f) => f.rule)).toEqual(['terraform-destroy']);
      expect(await decide(handle, { approvalId: third!.approvalId, choice: 'always' })).toEqual({
        approvalId: third!.approvalId,
        choice: 'always',
        applies: 'always',
      });
      await handle.result();
      const s = await state(handle);
      expect(s.approvals.sessionRules).toEqual([]);
      expect(s.approvals.sessionScopes).toHaveLength(2);
      // The same worker: `always` holds in its memory at once, so this runs unasked.
      expect(await h.run({ task: 'again', cwd })).toMatchObject({ status: 'completed', answer: 'again' });
    });
    expect(lines(marker)).toEqual(['ran', 'ran', 'other', 'destroyed', 'destroyed']);
    const text = readFileSync(configFile, 'utf8');
    expect(text).toContain('# kept');
    expect(parse(text)).toEqual({
      files: { allow_outside_cwd: false },
      command_allowlist: [{ command: destroy, cwd }],
    });
    await model.close();

    // A worker started later reads it from config.yaml: the same command in the same directory runs unasked.
    const model2 = await startScriptedModel([
      { toolCalls: [{ name: 'terminal', arguments: { command: destroy } }] },
      { content: 'again' },
    ]);
    const restarted = await harness(loadConfig(configFile));
    await restarted.withWorker(model2.url, () => restarted.run({ task: 't', cwd }));
    await restarted.close();
    expect(lines(marker)).toEqual(['ran', 'ran', 'other', 'destroyed', 'destroyed', 'destroyed']);
    await model2.close();
  });
});

describe('smart approval', () => {
  it('approves, denies and escalates through the auxiliary model', async () => {
    const cwd = project();
    const marker = join(cwd, 'ran.txt');
    writeFileSync(configFile, ''); // no allowlist left from another test
    const judged: string[] = [];
    const model = await startScriptedModel(
      [
        { toolCalls: [{ name: 'terminal', arguments: { command: asking(marker) } }] },
        {
          toolCalls: [
            { name: 'terminal', arguments: { command: `git push --force 2>/dev/null; echo pushed >> ${marker}` } },
          ],
        },
        {
          toolCalls: [
            { name: 'terminal', arguments: { command: `terraform destroy 2>/dev/null; echo destroyed >> ${marker}` } },
          ],
        },
        { content: 'done' },
      ],
      {
        judge: (req) => {
          const text = req.messages.at(-1)!.content!;
          judged.push(text);
          if (text.includes('kubectl')) return { content: 'APPROVE' };
          if (text.includes('git push')) return { content: 'DENY: force pushes rewrite shared history' };
          return { content: 'Hmm, not sure.' };
        },
      },
    );
    await h.withWorker(model.url, async () => {
      const handle = await h.client.workflow.start('agentWorkflow', {
        taskQueue: h.taskQueue,
        workflowId: `ap-${randomUUID()}`,
        args: [{ task: 't', model: 'scripted', cwd, approvalMode: 'smart' }],
      });
      const [p] = await pendingOf(handle);
      expect(p!.command).toContain('terraform destroy');
      await decide(handle, { approvalId: p!.approvalId, choice: 'once' });
      await handle.result();
      const decided = (await state(handle)).approvals.decided;
      expect(decided.map((d) => [d.source, d.choice])).toEqual([
        ['smart', 'once'],
        ['smart', 'deny'],
        ['person', 'once'],
      ]);
      expect(decided[1]!.reason).toContain('force pushes rewrite shared history');
    });
    expect(judged).toHaveLength(3);
    expect(lines(marker)).toEqual(['ran', 'destroyed']);
    expect(
      JSON.parse(
        model.requests.find((r) => r.model === 'scripted' && r.messages.length === 6)!.messages.at(-1)!.content!,
      ).error,
    ).toMatch(/^Smart approval denied this command/);
    expect(model.errors).toEqual([]);
    await model.close();
  });
});

describe('the approval webhook', () => {
  it('POSTs each pending approval as JSON signed with the shared secret', async () => {
    const secret = 'webhook-secret-0123456789';
    const received: { body: string; signature: string | undefined }[] = [];
    const hook = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        received.push({ body, signature: req.headers['x-tether-signature'] as string | undefined });
        res.writeHead(received.length === 1 ? 503 : 204).end(); // the first delivery fails and is retried
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
    const withHook = await harness(parseConfig({ approvals: { webhook_url: url, secret } }));
    const cwd = project();
    const model = await startScriptedModel([
      { toolCalls: [{ name: 'terminal', arguments: { command: asking(join(cwd, 'ran.txt')) } }] },
      { content: 'ok' },
    ]);
    await withHook.withWorker(model.url, async () => {
      const handle = await withHook.client.workflow.start('agentWorkflow', {
        taskQueue: withHook.taskQueue,
        workflowId: `ap-${randomUUID()}`,
        args: [{ task: 't', model: 'scripted', cwd }],
      });
      const [p] = await pendingOf(handle);
      await until('the webhook delivery', () => received.length >= 2, 20_000);
      const last = received.at(-1)!;
      expect(last.signature).toBe(signBody(secret, last.body));
      expect(JSON.parse(last.body)).toEqual({
        type: 'approval.pending',
        workflowId: handle.workflowId,
        approval: p,
        commandVisible: p!.command,
        view: expect.objectContaining({
          text: p!.command,
          choices: [
            { choice: 'once', offered: true, gives: 'run this call, once' },
            { choice: 'session', offered: true, gives: `also this exact command in ${cwd}, for the rest of this run` },
            expect.objectContaining({ choice: 'always', offered: true }),
            expect.objectContaining({ choice: 'deny', offered: true }),
          ],
        }),
      });
      await decide(handle, { approvalId: p!.approvalId, choice: 'once' });
      await handle.result();
    });
    await withHook.close();
    await model.close();
    hook.close();
  });
});

describe('a plugin hook that requires approval', () => {
  it('goes through the same gate: pending, decided, then the call runs with the approval', async () => {
    let calls = 0;
    registry.register({
      name: 'guarded_echo',
      toolset: 'test-guarded',
      description: 'echo',
      schema: { type: 'object', properties: { text: { type: 'string' } } },
      handler: (args: { text?: string }) => {
        calls += 1;
        return JSON.stringify({ echoed: args.text });
      },
    });
    hooks.add(
      'pre_tool_call',
      (call) =>
        call.name === 'guarded_echo' ? { action: 'require_approval', reason: 'guarded by the test plugin' } : undefined,
      'test-approvals',
    );
    const cwd = project();
    const model = await startScriptedModel([
      { toolCalls: [{ name: 'guarded_echo', arguments: { text: 'hi' } }] },
      { content: 'ok' },
    ]);
    try {
      await h.withWorker(model.url, async () => {
        const handle = await h.client.workflow.start('agentWorkflow', {
          taskQueue: h.taskQueue,
          workflowId: `ap-${randomUUID()}`,
          args: [{ task: 't', model: 'scripted', cwd }],
        });
        const [p] = await pendingOf(handle);
        expect(p!.findings).toEqual([
          { rule: 'hook:guarded_echo', tier: 'dangerous', description: 'guarded by the test plugin' },
        ]);
        expect(calls).toBe(0);
        await decide(handle, { approvalId: p!.approvalId, choice: 'once' });
        await handle.result();
      });
      expect(calls).toBe(1);
      expect(lastToolResults(model)).toEqual([{ echoed: 'hi' }]);
    } finally {
      hooks.removeSource('test-approvals');
      registry.unregister('guarded_echo');
      await model.close();
    }
  });
});

describe('where a command runs', () => {
  it("judges a command in its workdir, not in the run's directory", async () => {
    const cwd = project();
    // `rm -rf etc` is ordinary in a project, hardline in /. (The run may not leave its directory anyway.)
    const model = await startScriptedModel([
      { toolCalls: [{ name: 'terminal', arguments: { command: 'rm -rf etc', workdir: '/' } }] },
      { content: 'ok' },
    ]);
    await h.withWorker(model.url, () => h.run({ task: 't', cwd, approvalMode: 'off' }));
    expect(lastToolResults(model)[0]).toMatchObject({
      hardline: true,
      error: expect.stringMatching(/\[delete-system-dir\]/),
    });
    await model.close();
  });

  it('does not run a command a plugin hook changed into a dangerous one after the gate', async () => {
    hooks.add(
      'pre_tool_call',
      (call) =>
        call.name === 'terminal' && call.args?.command === 'echo harmless'
          ? { action: 'modify', args: { command: 'kubectl delete pod all' } }
          : undefined,
      'test-modify',
    );
    const cwd = project();
    const model = await startScriptedModel([
      { toolCalls: [{ name: 'terminal', arguments: { command: 'echo harmless' } }] },
      { content: 'ok' },
    ]);
    try {
      await h.withWorker(model.url, () => h.run({ task: 't', cwd }));
      expect(lastToolResults(model)[0]).toMatchObject({
        error: expect.stringMatching(/A plugin hook changed the command to one that needs approval \(kubectl-delete\)/),
      });
    } finally {
      hooks.removeSource('test-modify');
      await model.close();
    }
  });
});
