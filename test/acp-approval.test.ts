// Approvals over ACP as an editor sees them (raw JSON-RPC to `tether acp`, the dev server, the scripted model): the
// permission request renders the command as every channel does (no raw ESC, CR or bidi character in its title,
// content or raw input; the findings are not buried after a long command), its options have distinct ids, names
// and kinds, a computed command offers no wider approval, the tool-call entry beside a request shows the request's own
// text, and a run cancelled while it waits is no longer listed.
import { mkdtempSync, readFileSync, realpathSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { RawAcpClient, spawnAcp, type RpcMessage } from './support/acp-child.js';
import { until } from './support/cli.js';
import { startScriptedModel } from './support/scripted-model.js';
import { workerEnv } from './support/worker-process.js';
import type { AgentState } from '../src/common/types.js';

let client: Client;
beforeAll(async () => {
  client = new Client({ connection: await Connection.connect({ address: inject('temporalAddress') }) });
});
afterAll(() => client.connection.close());

/** Every string inside a JSON value. */
function strings(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v.flatMap(strings);
  if (v && typeof v === 'object') return Object.values(v).flatMap(strings);
  return [];
}

interface Permission {
  toolCall: { title: string; content: { content: { text: string } }[]; rawInput: Record<string, unknown> };
  options: { optionId: string; name: string; kind: string }[];
}

it('renders the request once, without raw control characters; distinct options; once only for a computed command; cancel clears the listing', async () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'tether-acp-approval-')));
  const marker = join(dir, 'ran.txt');
  const tricky = `kubectl delete pod x 2>/dev/null; echo "\x1b[2K\rlooks fine \u202eexe.sh"${' '.repeat(4100)}; true${'\n'.repeat(51)}echo ran >> ${marker}`;
  const model = await startScriptedModel([
    { toolCalls: [{ name: 'terminal', arguments: { command: tricky } }] },
    { toolCalls: [{ name: 'terminal', arguments: { command: tricky } }] }, // approved for the session: runs unasked
    { toolCalls: [{ name: 'terminal', arguments: { command: `C=ls; $C >/dev/null; echo c >> ${marker}` } }] },
    { content: 'first answer' },
    { toolCalls: [{ name: 'terminal', arguments: { command: 'kubectl delete pod never 2>/dev/null' } }] },
    { content: 'not reached' },
  ]);
  const { env } = workerEnv(inject('temporalAddress'), model.url, 'acp-approval');
  const acp = new RawAcpClient(spawnAcp({ ...env, TETHER_MODEL: 'scripted' }, dir));
  const asked: RpcMessage[] = [];
  let hold: ((v: Record<string, unknown>) => void) | undefined;
  try {
    const answers = ['session', 'once'];
    acp.onRequest = (m) => {
      asked.push(m);
      const answer = answers.shift();
      if (answer) return { outcome: { outcome: 'selected', optionId: answer } };
      // The third request is never answered by the person: the run is cancelled while it waits.
      return new Promise((resolve) => (hold = resolve));
    };
    await acp.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    const sessionId = (await acp.request('session/new', { cwd: dir, mcpServers: [] })).result?.sessionId as string;
    const first = await acp.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'go' }] });
    expect(first.result).toEqual({ stopReason: 'end_turn' });
    expect(readFileSync(marker, 'utf8')).toBe('ran\nran\nc\n');

    const [tight, computed] = asked.map((m) => m.params as unknown as Permission);
    expect(asked).toHaveLength(2);
    // No raw ESC, CR or bidi override anywhere in what the editor is given.
    for (const s of strings(tight)) expect(s).not.toMatch(/[\x1b\r\u202e]/);
    expect(tight!.toolCall.title).not.toContain('\n');
    // Nor in the tool call updates the editor shows beside the request.
    const calls = acp.updates().filter((u) => u.sessionUpdate === 'tool_call');
    expect(calls.length).toBeGreaterThan(0);
    for (const u of calls) for (const s of strings([u.title, u.rawInput])) expect(s).not.toMatch(/[\x1b\r\u202e]/);
    expect(tight!.toolCall.title).toContain(
      'kubectl delete pod x 2>/dev/null; echo "\\x1b[2K\\rlooks fine \\u202eexe.sh"',
    );
    // The content is the same rendering as the CLI's: the command (51 blank lines counted), the findings, the choices.
    const content = tight!.toolCall.content[0]!.content.text;
    expect(content).toContain('⟨50 blank lines⟩');
    expect(content).toContain('[kubectl-delete]');
    expect(content).toContain(`session also this exact command in ${dir}, for the rest of this run`);
    // The tail after 4,100 spaces is there, the spaces counted.
    expect(tight!.toolCall.rawInput.command).toBe(
      `kubectl delete pod x 2>/dev/null; echo "\\x1b[2K\\rlooks fine \\u202eexe.sh"⟨4,100 spaces⟩; true\n⟨50 blank lines⟩\necho ran >> ${marker}`,
    );
    expect(content).toContain('⟨4,100 spaces⟩; true');
    // The tool-call entry beside the request shows exactly the request's text: the same title, content and raw input
    // (not a summary with CR and no-break spaces as spaces, 4,100 spaces as one, cut at 80 characters).
    const entries = acp
      .updates()
      .filter(
        (u) => u.toolCallId === (tight!.toolCall as { toolCallId?: string }).toolCallId && u.status === 'pending',
      );
    expect(entries.length).toBeGreaterThan(0);
    const entry = entries.at(-1)!;
    expect(entry.title).toBe(tight!.toolCall.title);
    expect(entry.content).toEqual(tight!.toolCall.content);
    expect(entry.rawInput).toEqual(tight!.toolCall.rawInput);
    // Distinct ids, names and kinds: a client choosing by kind gets what the name says.
    expect(tight!.options.map((o) => [o.optionId, o.kind])).toEqual([
      ['once', 'allow_once'],
      ['session', 'allow_always'],
      ['deny', 'reject_once'],
    ]);
    expect(new Set(tight!.options.map((o) => o.name)).size).toBe(3);
    // A computed command: nothing wider than once is offered, and the raw input says why.
    expect(computed!.options.map((o) => o.optionId)).toEqual(['once', 'deny']);
    expect(JSON.stringify(computed!.toolCall.rawInput.choices)).toContain('once only: [dynamic-command]');

    // A run cancelled while an approval waits: it is gone from the listing and from the search attribute.
    const second = acp.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'again' }] });
    await until('the third permission request', () => asked.length === 3);
    const handle = client.workflow.getHandle(sessionId);
    await until('the pending approval in the search attribute', async () =>
      (await handle.describe()).typedSearchAttributes.getAll().some((a) => a.key.name === 'TetherPendingApprovals'),
    );
    acp.notify('session/cancel', { sessionId });
    expect((await second).result).toEqual({ stopReason: 'cancelled' });
    hold?.({ outcome: { outcome: 'cancelled' } });
    await until('the run cancelled', async () => (await handle.describe()).status.name === 'CANCELLED');
    await until('the pending approval gone from the search attribute', async () =>
      (await handle.describe()).typedSearchAttributes.getAll().every((a) => a.key.name !== 'TetherPendingApprovals'),
    );
    const state = await handle.query<AgentState>('state').catch(() => undefined);
    if (state) expect(state.pendingApprovals).toEqual([]);
    expect(existsSync(join(dir, 'never'))).toBe(false);
    expect(acp.badLines).toEqual([]);
  } finally {
    await acp.close();
    await model.close();
  }
}, 240_000);
