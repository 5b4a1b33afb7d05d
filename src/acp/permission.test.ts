// What an editor is sent for a pending approval over ACP (session/request_permission): a command is an execute
// call; a network approval is a fetch of HOST:PORT with the command that connected. The editor side is a recorder.
import type { AgentContext } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import type { PendingApproval } from '../common/approval-types.js';
import { recordingLogger } from '../../test/support/recording-logger.js';
import { EditorAsker } from './permission.js';

function editor(): { ctx: AgentContext; sent: { method: string; params: Record<string, unknown> }[] } {
  const sent: { method: string; params: Record<string, unknown> }[] = [];
  const ctx = {
    request: async (method: string, params: Record<string, unknown>) => {
      sent.push({ method, params });
      return { outcome: { outcome: 'selected', optionId: 'session' } };
    },
  } as unknown as AgentContext; // only `request` is used by EditorAsker
  return { ctx, sent };
}

const base: PendingApproval = {
  approvalId: 'ap-1',
  callId: 'call_1_1',
  tool: 'terminal',
  command: 'kubectl delete pod demo',
  findings: [{ rule: 'kubectl-delete', tier: 'dangerous', description: 'deletes Kubernetes resources' }],
  argsDigest: 'd',
  askedAt: '2026-01-01T00:00:00Z',
  expiresAt: '2026-01-01T01:00:00Z',
};

describe('EditorAsker', () => {
  it('asks about a network approval as a fetch of its host, with the command that made the connection', async () => {
    const { ctx, sent } = editor();
    const asker = new EditorAsker(ctx, 's-1', recordingLogger(), new AbortController().signal);
    const answer = await asker.ask({
      ...base,
      tool: 'network',
      kind: 'network',
      host: 'api.example.test',
      port: 443,
      command: 'curl https://api.example.test/',
      findings: [
        { rule: 'network:api.example.test:443', tier: 'dangerous', description: 'network: api.example.test:443' },
      ],
    });
    expect(answer).toEqual({ choice: 'session' });
    expect(sent[0]!.params.toolCall).toMatchObject({
      toolCallId: 'call_1_1',
      title: 'network: api.example.test:443 (asked by: curl https://api.example.test/)',
      kind: 'fetch',
      status: 'pending',
      rawInput: {
        host: 'api.example.test',
        port: 443,
        command: 'curl https://api.example.test/',
        approvalId: 'ap-1',
        expiresAt: '2026-01-01T01:00:00Z',
      },
    });
    expect(JSON.stringify(sent[0]!.params.toolCall)).toContain('network: api.example.test:443');
    await asker.ask(base);
    expect(sent[1]!.params.toolCall).toMatchObject({
      kind: 'execute',
      title: expect.stringMatching(/^terminal: kubectl/),
    });
  });
});
