// formatApproval is what the CLI prompt, `tether approvals` and `tether status` print for a pending approval.
import { describe, expect, it } from 'vitest';
import type { PendingApproval } from '../common/approval-types.js';
import { formatApproval } from './approval-commands.js';

const pending = (command: string): PendingApproval => ({
  approvalId: 'ap-1',
  callId: 'call-1',
  tool: 'terminal',
  command,
  findings: [{ rule: 'recursive-delete', tier: 'dangerous', description: `deletes recursively: ${command}` }],
  argsDigest: 'd',
  askedAt: '2026-01-01T00:00:00Z',
  expiresAt: '2026-01-01T01:00:00Z',
});

describe('formatApproval', () => {
  it('prints an ordinary command exactly', () => {
    const out = formatApproval(pending('rm -rf /srv/old'), 'wf-1');
    expect(out.split('\n')).toEqual([
      'wf-1 ap-1 · terminal · asked 2026-01-01T00:00:00Z · denied at 2026-01-01T01:00:00Z unless decided',
      '  $ rm -rf /srv/old',
      '  [recursive-delete] deletes recursively: rm -rf /srv/old',
    ]);
  });

  it('shows escape sequences, carriage returns and bidi overrides instead of printing them raw', () => {
    const out = formatApproval(pending('rm -rf ~ \x1b[2K\rls \u202etxt'));
    expect(out).not.toMatch(/[\x1b\r\u202e]/);
    expect(out).toContain('  $ rm -rf ~ \\x1b[2K\\rls \\u202etxt');
    expect(out).toContain('control or invisible characters');
    expect(out).toContain('[recursive-delete] deletes recursively: rm -rf ~ \\x1b[2K\\rls \\u202etxt');
  });

  it('marks the lines of a multi-line command so none can pass for a finding', () => {
    const lines = formatApproval(pending('true\n  [ok] looks safe\nrm -rf /srv')).split('\n');
    expect(lines.slice(1, 4)).toEqual(['  $ true', '  >   [ok] looks safe', '  > rm -rf /srv']);
    expect(lines[4]).toBe('  [recursive-delete] deletes recursively: true\\n  [ok] looks safe\\nrm -rf /srv');
  });

  it('names the host of a network approval before the command that connected (also from a memo without host fields)', () => {
    const network: PendingApproval = {
      ...pending('curl -fsS https://api.example.test/'),
      tool: 'network',
      kind: 'network',
      host: 'api.example.test',
      port: 443,
      findings: [
        {
          rule: 'network:api.example.test:443',
          tier: 'dangerous',
          description:
            'network: api.example.test:443 (connect), not in terminal.local.sandbox.egress.allow; asked by the command above',
        },
      ],
    };
    const lines = formatApproval(network, 'wf-1').split('\n');
    expect(lines.slice(0, 3)).toEqual([
      'wf-1 ap-1 · network · asked 2026-01-01T00:00:00Z · denied at 2026-01-01T01:00:00Z unless decided',
      '  network: api.example.test:443',
      '  $ curl -fsS https://api.example.test/',
    ]);
    const { kind: _k, host: _h, port: _p, ...memo } = network;
    expect(formatApproval(memo).split('\n')[1]).toBe('  network: api.example.test:443');
  });
});
