// `tether acp` driven by the ACP SDK's client side, as an editor built on it would: initialize, a session with an MCP
// server of the editor's, streamed updates, permission requests answered allow_once and reject_once, and cancel.
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import {
  client as acpClient,
  ndJsonStream,
  PROTOCOL_VERSION,
  type ActiveSession,
  type SessionUpdate,
  type StopReason,
} from '@agentclientprotocol/sdk';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { RawAcpClient, spawnAcp } from './support/acp-child.js';
import { until } from './support/cli.js';
import { startScriptedModel, type ChatRequest } from './support/scripted-model.js';
import { workerEnv } from './support/worker-process.js';

const require = createRequire(import.meta.url);
const everything = join(
  dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);

let temporal: Client;
beforeAll(async () => {
  temporal = new Client({ connection: await Connection.connect({ address: inject('temporalAddress') }) });
});
afterAll(() => temporal.connection.close());

const lastToolResult = (req: ChatRequest): string =>
  [...req.messages].reverse().find((m) => m.role === 'tool')?.content ?? '';

/** Reads a turn's updates until its stop message. */
async function drain(
  session: ActiveSession,
  seen: SessionUpdate[],
  stopWhen?: (u: SessionUpdate) => boolean,
  onStop?: () => void,
): Promise<StopReason> {
  for (;;) {
    const m = await session.nextUpdate();
    if (m.kind === 'stop') return m.stopReason;
    seen.push(m.update);
    if (stopWhen?.(m.update)) onStop?.();
  }
}

const sleeping = (): Promise<boolean> =>
  new Promise((res) => execFile('pgrep', ['-f', '^sleep 137$'], (_e, out) => res(out.trim() !== '')));

it('an SDK client: MCP server from the editor, allow_once, reject_once, cancel', async () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'tether-acp-sdk-')));
  const marker = join(dir, 'once.txt');
  const refused = join(dir, 'refused.txt');
  let toldModel = '';
  let echoed = '';
  const model = await startScriptedModel([
    (req) => {
      if (req.messages.some((m) => m.content?.includes('wait a long time')))
        return { toolCalls: [{ name: 'terminal', arguments: { command: 'sleep 137' } }] };
      expect(req.tools?.map((t) => t.function.name)).toContain('mcp_editor-tools_echo');
      return {
        content: 'Using the editor tool.',
        toolCalls: [{ name: 'mcp_editor-tools_echo', arguments: { message: 'from the editor' } }],
      };
    },
    (req) => {
      echoed = lastToolResult(req);
      return {
        toolCalls: [
          { name: 'terminal', arguments: { command: `kubectl delete pod a 2>/dev/null; echo once >> ${marker}` } },
        ],
      };
    },
    { content: 'done once' },
    {
      toolCalls: [
        { name: 'terminal', arguments: { command: `kubectl delete pod b 2>/dev/null; echo no >> ${refused}` } },
      ],
    },
    (req) => {
      toldModel = lastToolResult(req);
      return { content: 'not run, as you said' };
    },
  ]);
  const { env } = workerEnv(inject('temporalAddress'), model.url, 'acp-sdk');
  const child = spawnAcp({ ...env, TETHER_MODEL: 'scripted' }, dir);
  const raw = new RawAcpClient(child); // only to collect stderr and stop the child; the SDK owns stdio
  child.stdout.removeAllListeners('data');
  const choices = ['allow_once', 'reject_once'];
  const app = acpClient({ name: 'test-editor' }).onRequest('session/request_permission', ({ params }) => {
    const kind = choices.shift();
    const option = params.options.find((o) => o.kind === kind)!;
    return { outcome: { outcome: 'selected', optionId: option.optionId } };
  });
  const stream = ndJsonStream(
    Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
  );
  try {
    await app.connectWith(stream, async (ctx) => {
      const init = await ctx.request('initialize', { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
      expect(init.protocolVersion).toBe(PROTOCOL_VERSION);
      const session = await ctx
        .buildSession({
          cwd: dir,
          mcpServers: [{ name: 'editor-tools', command: 'node', args: [everything, 'stdio'], env: [] }],
        })
        .start();
      const seen: SessionUpdate[] = [];

      const first = session.prompt('use the editor tool, then write the marker');
      expect(await drain(session, seen)).toBe('end_turn');
      expect(await first).toEqual({ stopReason: 'end_turn' });
      expect(echoed).toContain('from the editor');
      expect(readFileSync(marker, 'utf8')).toBe('once\n');
      expect(seen).toContainEqual({
        sessionUpdate: 'agent_message_chunk',
        content: { type: 'text', text: 'Using the editor tool.' },
      });
      expect(seen).toContainEqual(
        expect.objectContaining({
          sessionUpdate: 'tool_call',
          title: expect.stringContaining('mcp_editor-tools_echo'),
        }),
      );

      const second = session.prompt('and the other one');
      expect(await drain(session, seen)).toBe('end_turn');
      await second;
      expect(existsSync(refused)).toBe(false);
      expect(toldModel).toContain('denied');
      expect(seen).toContainEqual({
        sessionUpdate: 'agent_message_chunk',
        content: { type: 'text', text: 'not run, as you said' },
      });

      session.dispose();
      // Cancel while the command runs: the turn stops as cancelled, the run is cancelled, the command is gone. (A
      // session of its own: its first terminal call is not pinned to this worker's queue; see the report.)
      const other = await ctx.buildSession(dir).start();
      const third = other.prompt('now wait a long time');
      let cancelled = false;
      const reason = await drain(
        other,
        seen,
        (u) => u.sessionUpdate === 'tool_call' && u.title.includes('sleep 137'),
        () => {
          if (cancelled) return;
          cancelled = true;
          void until('the command to start', sleeping).then(() =>
            ctx.notify('session/cancel', { sessionId: other.sessionId }),
          );
        },
      );
      expect(reason).toBe('cancelled');
      await third;
      expect((await temporal.workflow.getHandle(other.sessionId).describe()).status.name).toBe('CANCELLED');
      await until('the command to be stopped', async () => !(await sleeping()), 30_000);
      other.dispose();
    });
  } finally {
    await raw.close();
    await model.close();
  }
  expect(model.errors).toEqual([]);
}, 300_000);
