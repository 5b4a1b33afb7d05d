// WaitingLines: one line when a run starts waiting for a person (what for, the exact command that decides), one when
// it goes on (how it was decided); redacted as shared views are; nothing for an approval this terminal asks itself.
import { describe, expect, it } from 'vitest';
import type { PendingApproval } from '../common/approval-types.js';
import type { AgentState } from '../common/types.js';
import { WaitingLines } from './waiting-lines.js';

const pending = (command: string, extra: Partial<PendingApproval> = {}): PendingApproval => ({
  approvalId: 'ap-1',
  callId: 'call-1',
  tool: 'terminal',
  command,
  findings: [{ rule: 'git-force-push', tier: 'dangerous', description: 'git push rewrites remote history' }],
  argsDigest: 'd',
  askedAt: '2026-01-01T00:00:00Z',
  expiresAt: '2026-01-01T01:00:00Z',
  ...extra,
});

const state = (over: Partial<AgentState> = {}): AgentState =>
  ({
    pendingApprovals: [],
    approvals: { decided: [], rejected: [], sessionRules: [] },
    ...over,
  }) as unknown as AgentState;

describe('WaitingLines', () => {
  it('says what waits and how to decide, once, then how it was decided', () => {
    const lines = new WaitingLines('wf-1');
    const p = pending('git push --force origin main');
    expect(lines.next(state({ pendingApprovals: [p] }))).toEqual([
      '⏸ waiting for a person: approval ap-1 of terminal: git push --force origin main [git-force-push] — approve with: tether approve wf-1 ap-1 (or: tether deny wf-1 ap-1); everything waiting: tether approvals',
    ]);
    expect(lines.next(state({ pendingApprovals: [p] }))).toEqual([]);
    const decided = {
      approvalId: 'ap-1',
      callId: 'call-1',
      tool: 'terminal',
      command: p.command,
      choice: 'once' as const,
      source: 'person' as const,
      by: 'cli',
      decidedAt: '2026-01-01T00:01:00Z',
    };
    expect(lines.next(state({ approvals: { decided: [decided], rejected: [], sessionRules: [] } }))).toEqual([
      '▶ going on: approval ap-1 approved (once) by cli',
    ]);
  });

  it('shows the command alone (not the files the gate read), redacted, on one line', () => {
    const command = 'API_TOKEN=abcdefgh12345; git push "https://bot:$API_TOKEN@h/r"\necho done';
    const read = '[core]\n\tbare = false\n';
    const p = pending(`${command}\n# .git/config:\n${read}`, {
      readFiles: { at: command.length, files: [{ path: '.git/config', chars: read.length }] },
    });
    const [line] = new WaitingLines('wf-1').next(state({ pendingApprovals: [p] }));
    expect(line).toContain('API_TOKEN=⟨redacted: 13 characters⟩; git push "https://bot:$API_TOKEN@h/r"\\necho done [');
    expect(line).not.toContain('abcdefgh12345');
    expect(line).not.toContain('[core]');
  });

  it('gives no waiting line for an approval this terminal asks about, and says a question and its answer', () => {
    const lines = new WaitingLines('wf-1');
    expect(lines.next(state({ pendingApprovals: [pending('x')] }), () => true)).toEqual([]);
    const question = { id: 'q-1', question: 'Which branch?', askedAt: 'a', expiresAt: 'b' };
    expect(lines.next(state({ pendingApprovals: [pending('x')], question }))).toEqual([
      '⏸ waiting for a person: the agent asks "Which branch?" — answer with: tether answer wf-1 "..."',
    ]);
    expect(lines.next(state({ pendingApprovals: [pending('x')] }))).toEqual([
      '▶ going on: question q-1 answered (or timed out)',
    ]);
    expect(lines.ended()).toEqual(['▶ going on: approval ap-1 is no longer waiting']);
  });
});
