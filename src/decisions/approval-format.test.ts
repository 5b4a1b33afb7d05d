// formatApproval is what the CLI prompt, `tether approvals` and `tether status` print for a pending approval.
import { describe, expect, it } from 'vitest';
import { viewOfMemo, viewOfPending } from '../approval/approval-view.js';
import { memoApproval } from '../workflows/visibility-memo.js';
import type { ApprovalScope, PendingApproval } from '../common/approval-types.js';
import { decisionLine, formatApproval } from './approval-format.js';

const pending = (command: string, scope?: ApprovalScope): PendingApproval => ({
  approvalId: 'ap-1',
  callId: 'call-1',
  tool: 'terminal',
  command,
  findings: [{ rule: 'recursive-delete', tier: 'dangerous', description: `deletes recursively: ${command}` }],
  argsDigest: 'd',
  askedAt: '2026-01-01T00:00:00Z',
  expiresAt: '2026-01-01T01:00:00Z',
  ...(scope ? { scope, cwd: '/w' } : {}),
});

const show = (p: PendingApproval, maxLines?: number): string[] =>
  formatApproval(viewOfPending(p), { workflowId: 'wf-1', maxLines }).split('\n');

describe('formatApproval', () => {
  it('prints an ordinary command exactly, and what each choice gives', () => {
    const scope = { key: 'k', covers: 'this exact command in /w', always: { command: 'rm -rf /srv/old', cwd: '/w' } };
    expect(show(pending('rm -rf /srv/old', scope))).toEqual([
      'wf-1 ap-1 · terminal · asked 2026-01-01T00:00:00Z · denied at 2026-01-01T01:00:00Z unless decided',
      '  in /w',
      '  $ rm -rf /srv/old',
      '  [recursive-delete] deletes recursively: rm -rf /srv/old',
      '  choices:',
      '    once    run this call, once',
      '    session also this exact command in /w, for the rest of this run',
      '    always  also this exact command in /w, in every later run of this worker and after its restart (added to command_allowlist)',
      '    deny    do not run it; the model is told, with your reason',
    ]);
  });

  it('says when only once can be given, and why', () => {
    const scope = {
      key: 'k',
      covers: 'this exact command in /w',
      onceOnly: '[dynamic-command] means tether could not read what will run, so only this one call can be approved',
    };
    const lines = show(pending('C=ls; $C', scope));
    expect(lines).toContain(
      '    session (not offered) once only: [dynamic-command] means tether could not read what will run, so only this one call can be approved',
    );
  });

  it('shows escape sequences, carriage returns and bidi overrides instead of printing them raw', () => {
    const out = show(pending('rm -rf ~ \x1b[2K\rls \u202etxt')).join('\n');
    expect(out).not.toMatch(/[\x1b\r\u202e]/);
    expect(out).toContain('  $ rm -rf ~ \\x1b[2K\\rls \\u202etxt');
    expect(out).toContain(
      'control, bidi, invisible or look-alike characters that could make it read as something else',
    );
    expect(out).toContain('[recursive-delete] deletes recursively: rm -rf ~ \\x1b[2K\\rls \\u202etxt');
  });

  it('marks the lines of a multi-line command so none can pass for a finding', () => {
    const lines = show(pending('true\n  [ok] looks safe\nrm -rf /srv'));
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
    expect(show(network).slice(0, 3)).toEqual([
      'wf-1 ap-1 · network · asked 2026-01-01T00:00:00Z · denied at 2026-01-01T01:00:00Z unless decided',
      '  network: api.example.test:443',
      '  $ curl -fsS https://api.example.test/',
    ]);
    const { kind: _k, host: _h, port: _p, ...bare } = network;
    expect(formatApproval(viewOfMemo(memoApproval(bare))).split('\n')[1]).toBe('  network: api.example.test:443');
  });

  it('shows the end of a long command: padding is counted, and a long text shows its start and end', () => {
    const padded = show(pending(`echo hi${' '.repeat(4100)}; rm -rf ~/work`));
    expect(padded[1]).toBe('  $ echo hi⟨4,100 spaces⟩; rm -rf ~/work');
    const many = Array.from({ length: 300 }, (_, i) => `echo ${i}`).join('\n');
    const lines = show(pending(`${many}\nrm -rf ~/work`), 40);
    expect(lines).toContain('  > rm -rf ~/work');
    expect(lines.some((l) => /⟨262 more lines, .* answer v to show all⟩/.test(l))).toBe(true);
  });
});

describe('decisionLine', () => {
  it('says what a choice gave, and why when it was narrowed', () => {
    expect(decisionLine('session', { status: 'applied', via: 'update', applies: 'session' })).toBe(
      'approved (session)',
    );
    expect(decisionLine('always', { status: 'applied', via: 'update', applies: 'once' })).toBe(
      'approved (once: always is not offered for this approval, so it counts as once)',
    );
    expect(decisionLine('deny', { status: 'applied', via: 'update' })).toBe('denied');
  });
});
