// The visibility memo as a table: bounded, escaped, redacted; the status a run shows for each state.
import { describe, expect, it } from 'vitest';
import type { PendingApproval } from '../common/approval-types.js';
import type { AgentState } from '../common/types.js';
import { MEMO_LIMITS, memoApproval, runMemo, visibleStatus } from './visibility-memo.js';

const pending = (over: Partial<PendingApproval> = {}): PendingApproval => ({
  approvalId: 'ap-1',
  callId: 'call_1',
  tool: 'terminal',
  command: 'kubectl delete pod web',
  findings: [{ rule: 'kubectl-delete', tier: 'dangerous', description: 'deletes Kubernetes resources' }],
  argsDigest: 'abc',
  askedAt: '2026-01-01T00:00:00.000Z',
  expiresAt: '2026-01-01T01:00:00.000Z',
  ...over,
});

const state = (over: Partial<AgentState> = {}): AgentState =>
  ({ status: 'running', children: [], ...over }) as AgentState;

describe('visibility memo', () => {
  it('keeps the command as shown, and says nothing was changed when nothing was', () => {
    expect(memoApproval(pending())).toEqual({ ...pending() });
  });

  it('redacts secrets, escapes control characters and shortens long commands, saying so', () => {
    const secret = 'sk-proj-abcdefghijklmnopqrstuvwxyz0123';
    const m = memoApproval(pending({ command: `OPENAI_API_KEY=${secret} curl x\u202e; printf '\x1b[2J'` }));
    expect(m.command).not.toContain(secret);
    expect(m.command).toContain('OPENAI_API_KEY=⟨redacted: 38 characters⟩ curl x\\u202e');
    expect(m.command).toContain('\\x1b');
    expect(m).toMatchObject({ redacted: true, hidden: true });
    const long = memoApproval(pending({ command: `echo ${'a'.repeat(5000)}` }));
    expect(long.command.length).toBe(MEMO_LIMITS.commandChars);
    expect(long).toMatchObject({ shortened: true, chars: 5005 });
  });

  it('shows the tail after padding, and never hides the code after a secret', () => {
    const padded = memoApproval(pending({ command: `echo hi${' '.repeat(4100)}; rm -rf ~/work` }));
    expect(padded).toMatchObject({ command: 'echo hi⟨4,100 spaces⟩; rm -rf ~/work', collapsed: true });
    expect(padded.shortened).toBeUndefined();
    const secret = memoApproval(pending({ command: 'ls; DEPLOY_TOKEN=abcdef;date>>f' }));
    expect(secret.command).toBe('ls; DEPLOY_TOKEN=⟨redacted: 6 characters⟩;date>>f');
  });

  it('says what a wider approval covers', () => {
    const m = memoApproval(
      pending({
        cwd: '/w',
        scope: { key: 'k', covers: 'this exact command in /w', always: { command: 'x', cwd: '/w' } },
      }),
    );
    expect(m).toMatchObject({ cwd: '/w', scope: { covers: 'this exact command in /w', always: true } });
    expect(JSON.stringify(m)).not.toContain('"key"');
  });

  it('bounds the number of approvals and findings, and the size of the whole memo', () => {
    const findings = Array.from({ length: 20 }, (_, i) => ({
      rule: `r${i}`,
      tier: 'dangerous' as const,
      description: 'x'.repeat(1000),
    }));
    const many = Array.from({ length: 30 }, (_, i) =>
      pending({ approvalId: `ap-${i}`, command: 'y'.repeat(10_000), findings }),
    );
    const memo = runMemo(state(), many, 'z'.repeat(10_000));
    expect(memo.approvals).toHaveLength(MEMO_LIMITS.approvals);
    expect(memo.moreApprovals).toBe(30 - MEMO_LIMITS.approvals);
    expect(memo.approvals[0]!.findings).toHaveLength(MEMO_LIMITS.findings);
    expect(JSON.stringify(memo).length).toBeLessThan(20_000);
  });

  it.each([
    [state(), [], 'running'],
    [state(), [pending()], 'waiting-approval'],
    [state({ question: { id: 'q', question: '?', askedAt: '', expiresAt: '' } }), [], 'waiting-answer'],
    [state({ idle: true }), [], 'waiting-message'],
    [state({ children: [{ workflowId: 'c', goal: 'g', status: 'running' }] }), [], 'waiting-subagents'],
    [state({ status: 'limit_reached' }), [], 'limit-reached'],
    [state({ status: 'completed' }), [], 'completed'],
  ] as const)('status of %j with %j pending is %s', (s, p, expected) => {
    expect(visibleStatus(s, p)).toBe(expected);
  });
});
