// `tether acp` spoken to as an editor does: raw newline-delimited JSON-RPC over the child's stdio, against the real
// dev server, the scripted model and the worker the ACP process embeds.
import { existsSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { RawAcpClient, spawnAcp, type RpcMessage } from './support/acp-child.js';
import { startScriptedModel, type ChatRequest, type ScriptedModel } from './support/scripted-model.js';
import { workerEnv } from './support/worker-process.js';
import type { AgentState } from '../src/common/types.js';

let client: Client;
beforeAll(async () => {
  client = new Client({ connection: await Connection.connect({ address: inject('temporalAddress') }) });
});
afterAll(() => client.connection.close());

const lastToolResult = (req: ChatRequest): string =>
  [...req.messages].reverse().find((m) => m.role === 'tool')?.content ?? '';

it('initialize, a session, two prompts with streamed updates; allow_once runs the command once, reject_once tells the model', async () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'tether-acp-raw-')));
  const marker = join(dir, 'ran.txt');
  const denied = join(dir, 'denied.txt');
  let seenByModel = '';
  const model: ScriptedModel = await startScriptedModel([
    {
      content: 'Planning first.',
      toolCalls: [
        { name: 'todo', arguments: { todos: [{ id: 'a', content: 'write the marker', status: 'in_progress' }] } },
        { name: 'write_file', arguments: { path: 'notes.txt', content: 'hello from tether\n' } },
      ],
    },
    {
      toolCalls: [
        { name: 'terminal', arguments: { command: `kubectl delete pod x 2>/dev/null; echo ran >> ${marker}` } },
      ],
    },
    { content: 'first answer' },
    {
      toolCalls: [
        { name: 'terminal', arguments: { command: `kubectl delete pod y 2>/dev/null; echo no >> ${denied}` } },
      ],
    },
    (req) => {
      seenByModel = lastToolResult(req);
      return { content: 'understood, not run' };
    },
  ]);
  const { env, taskQueue } = workerEnv(inject('temporalAddress'), model.url, 'acp-raw');
  const acp = new RawAcpClient(spawnAcp({ ...env, TETHER_MODEL: 'scripted' }, dir));
  try {
    const answers = ['once', 'deny'];
    const asked: RpcMessage[] = [];
    acp.onRequest = (m) => {
      asked.push(m);
      return { outcome: { outcome: 'selected', optionId: answers.shift() } };
    };
    const init = await acp.request('initialize', {
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
    });
    expect(init.result).toMatchObject({ protocolVersion: 1, agentCapabilities: { loadSession: true } });

    const created = await acp.request('session/new', { cwd: dir, mcpServers: [] });
    const sessionId = created.result?.sessionId as string;
    expect(sessionId).toMatch(/^tether-/);

    const first = await acp.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'write the marker' }],
    });
    expect(first.result).toEqual({ stopReason: 'end_turn' });
    expect(readFileSync(marker, 'utf8')).toBe('ran\n'); // allowed once: run once
    expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('hello from tether\n');

    const permission = asked[0]!.params as {
      sessionId: string;
      toolCall: { toolCallId: string; title: string };
      options: { optionId: string; kind: string }[];
    };
    expect(asked[0]!.method).toBe('session/request_permission');
    expect(permission.sessionId).toBe(sessionId);
    expect(permission.toolCall.title).toContain('kubectl delete pod x');
    // Session is allow_always; tether's `always` has no ACP kind of its own and is not offered here.
    expect(permission.options.map((o) => o.kind)).toEqual(['allow_once', 'allow_always', 'reject_once']);

    const updates = acp.updates();
    const kinds = updates.map((u) => u.sessionUpdate);
    expect(updates).toContainEqual({
      sessionUpdate: 'agent_message_chunk',
      content: { type: 'text', text: 'Planning first.' },
    });
    expect(updates).toContainEqual({
      sessionUpdate: 'agent_message_chunk',
      content: { type: 'text', text: 'first answer' },
    });
    expect(updates).toContainEqual(
      expect.objectContaining({
        sessionUpdate: 'plan',
        entries: [{ content: 'write the marker', priority: 'medium', status: 'in_progress' }],
      }),
    );
    // The text of a turn comes before its tool calls; every tool call opens with tool_call and closes with an update.
    expect(kinds.indexOf('agent_message_chunk')).toBeLessThan(kinds.indexOf('tool_call'));
    const calls = updates.filter((u) => u.sessionUpdate === 'tool_call');
    expect(calls.map((c) => c.kind)).toEqual(['think', 'edit', 'execute']);
    expect(calls[1]).toMatchObject({
      content: [{ type: 'diff', path: join(dir, 'notes.txt'), newText: 'hello from tether\n' }],
    });
    for (const c of calls) {
      expect(updates).toContainEqual(
        expect.objectContaining({ sessionUpdate: 'tool_call_update', toolCallId: c.toolCallId, status: 'completed' }),
      );
    }
    const terminalDone = updates.find(
      (u) =>
        u.sessionUpdate === 'tool_call_update' &&
        u.toolCallId === permission.toolCall.toolCallId &&
        u.status === 'completed',
    );
    expect(JSON.stringify(terminalDone?.content)).toContain('exit_code');

    // The second prompt reaches the same run as its `message` signal.
    const second = await acp.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'now the other one' }],
    });
    expect(second.result).toEqual({ stopReason: 'end_turn' });
    expect(existsSync(denied)).toBe(false);
    expect(seenByModel).toContain('denied');
    expect(acp.updates()).toContainEqual(
      expect.objectContaining({ sessionUpdate: 'tool_call_update', status: 'failed' }),
    );
    const state = await client.workflow.getHandle(sessionId).query<AgentState>('state');
    expect(state).toMatchObject({ status: 'running', idle: true, answers: 2 });
    expect(state.approvals.decided.map((d) => [d.choice, d.by])).toEqual([
      ['once', 'acp'],
      ['deny', 'acp'],
    ]);
    expect((await client.workflow.getHandle(sessionId).describe()).taskQueue).toBe(`${taskQueue}-acp`);

    // Standard output carried JSON-RPC only.
    expect(acp.badLines).toEqual([]);
    await client.workflow.getHandle(sessionId).cancel();
  } finally {
    await acp.close();
    await model.close();
  }
  expect(model.errors).toEqual([]);
}, 240_000);
